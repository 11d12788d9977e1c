// What the proxy makes of one MCP session's traffic: it reads a copy of each whole line in either direction,
// opens a span per `tools/call` request and ends it with the upstream's answer, learns who is at either end from
// `initialize` (in the stateless 2026-07-28 revision, from each request's `_meta` envelope and each answer's
// `serverInfo`) and the contracts from `tools/list`. It never throws into the forwarding path. This class reads
// lines and keeps the session's state (observer-state.ts); each direction's messages are read in
// client-messages.ts and upstream-messages.ts, a 2025 session's rounds of input in input-rounds.ts.
import { endUnanswered } from './call-end.js';
import { onClientMessage, openReadCalls } from './client-messages.js';
import { looksLikeJson, parseLine } from './jsonrpc.js';
import { mayBeWatched } from './method-filter.js';
import {
  malformed,
  newObserverState,
  type ObserverOptions,
  type ObserverState,
  type TrafficCounts,
  unreadable,
} from './observer-state.js';
import { withTraceparent } from './trace-meta.js';
import { onUpstreamMessage } from './upstream-messages.js';

export type { ObserverOptions, TrafficCounts } from './observer-state.js';

/** Observer of one session (a stdio child, one Streamable HTTP session, or one connection without a session). */
export class McpObserver {
  readonly #s: ObserverState;
  readonly counts: TrafficCounts;

  constructor(options: ObserverOptions) {
    this.#s = newObserverState(options);
    this.counts = this.#s.counts;
  }

  /** The MCP session this observer follows, once the upstream named it (Streamable HTTP). */
  setSession(id: string): void {
    this.#s.o.context.sessionId = id;
    this.#s.conversationOf = undefined;
  }

  /** Calls in flight. */
  get inFlight(): number {
    let n = this.#s.unopened.length;
    for (const p of this.#s.pending.values()) if (p.kind === 'call') n++;
    return n;
  }

  /** The calls in flight, as the log names what a shutdown cut: JSON-RPC id and tool. */
  callsInFlight(): { id: string; tool: string }[] {
    this.afterForward();
    const calls: { id: string; tool: string }[] = [];
    for (const [key, p] of this.#s.pending)
      if (p.kind === 'call') calls.push({ id: key.slice(1), tool: p.call.tool });
    return calls;
  }

  /**
   * A whole line from the client (its newline may be included), before it is forwarded: the bytes to forward,
   * which are `line` itself except for a `tools/call`, which carries the proxy's span in `params._meta.traceparent`
   * (and the session's conversation, for a call that has neither trace context nor a conversation of its own).
   * Only what those bytes depend on is done here; the call's span is made by `afterForward`. The keys of the
   * calls the line carries are added to `calls` when given (an HTTP request ends only its own calls).
   */
  fromClient(line: Buffer, calls?: string[]): Buffer {
    const s = this.#s;
    if (s.rounds.waiting) {
      try {
        s.rounds.answered(line);
      } catch (error) {
        unreadable(s, 'client', error);
      }
    }
    if (!mayBeWatched(line)) {
      if (line.length > 0 && !looksLikeJson(line)) malformed(s, 'client');
      return line;
    }
    try {
      const messages = parseLine(line.toString('utf8'));
      if (!messages) {
        malformed(s, 'client');
        return line;
      }
      let out = line;
      for (const m of messages) {
        const traceparent = onClientMessage(s, m, calls);
        // A batch is observed but not rewritten: its calls' spans are the client's children all the same.
        if (traceparent && messages.length === 1)
          out = withTraceparent(line, traceparent, s.passOn) ?? line;
      }
      return out;
    } catch (error) {
      unreadable(s, 'client', error);
      return line;
    }
  }

  /**
   * What waits for the client's bytes to be on their way: the spans of the `tools/call` requests `fromClient`
   * passed (their input fingerprint, attributes and span objects). Called by the transport once it has written
   * what `fromClient` returned, in the same turn; anything else the observer is asked first runs it itself.
   */
  afterForward(): void {
    openReadCalls(this.#s);
  }

  /**
   * A whole line from the upstream. Without `--enforce-output` it was already forwarded and the result is
   * ignored; with it, a replacement for a result that broke its tool's outputSchema.
   */
  fromUpstream(line: Buffer): Buffer | undefined {
    this.afterForward();
    const s = this.#s;
    if (s.pending.size === 0 && !line.includes('list_changed')) {
      if (line.length > 0 && !looksLikeJson(line)) malformed(s, 'upstream');
      return undefined;
    }
    try {
      const messages = parseLine(line.toString('utf8'));
      if (!messages) {
        malformed(s, 'upstream');
        return undefined;
      }
      let replaced: Buffer | undefined;
      for (const m of messages) {
        const replacement = onUpstreamMessage(s, m);
        if (replacement && messages.length === 1) replaced = replacement;
      }
      return replaced;
    } catch (error) {
      unreadable(s, 'upstream', error);
      return undefined;
    }
  }

  /** Ends the calls of `keys` still in flight as `upstream_exited` (their request failed); how many. */
  endCalls(keys: readonly string[]): number {
    this.afterForward();
    let ended = 0;
    for (const key of keys) {
      const p = this.#s.pending.get(key);
      if (p?.kind !== 'call') continue;
      this.#s.pending.delete(key);
      endUnanswered(p.call);
      ended++;
    }
    return ended;
  }

  /** Ends every call still in flight as `upstream_exited`. */
  endAll(): number {
    this.afterForward();
    let ended = 0;
    for (const p of this.#s.pending.values()) {
      if (p.kind !== 'call') continue;
      endUnanswered(p.call);
      ended++;
    }
    this.#s.pending.clear();
    return ended;
  }
}
