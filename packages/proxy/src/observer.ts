// What the proxy makes of one MCP session's traffic: it reads a copy of each whole line in either direction,
// opens a span per `tools/call` request and ends it with the upstream's answer, learns who is at either end from
// `initialize` (in the stateless 2026-07-28 revision, from each request's `_meta` envelope and each answer's
// `serverInfo`) and the contracts from `tools/list`. It never throws into the forwarding path.
import {
  echoedStateOf,
  inputRound,
  newLogicalCall,
  taskIdOf,
  unfinishedOf,
} from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import { checkOutput, endUnanswered, endWithError, endWithResult } from './call-end.js';
import {
  type CallContext,
  type OpenCall,
  parentOf,
  startCall,
  type Unopened,
} from './call-span.js';
import { enforcedResponse } from './enforce.js';
import { readEnvelope, readInitialize, readServer } from './envelope.js';
import { idKey, looksLikeJson, parseLine, type RpcMessage } from './jsonrpc.js';
import { causeOf, type Logger } from './log.js';
import type { LogicalCalls } from './logical-calls.js';
import { mayBeWatched } from './method-filter.js';
import type { ParentRef } from './otlp/proxy-span.js';
import { formatTraceparent, nowNs } from './otlp/trace-context.js';
import type { SessionTelemetry } from './telemetry.js';
import type { ToolTable } from './tool-table.js';
import { withTraceparent } from './trace-meta.js';

type Pending =
  | { kind: 'bootstrap' }
  | { kind: 'list'; firstPage: boolean }
  | { kind: 'call'; call: OpenCall }
  | { kind: 'poll'; method: string; taskId: string; parent: ParentRef | undefined };

/** Counts of what the proxy saw; malformed lines were forwarded all the same. */
export type TrafficCounts = {
  calls: number;
  malformedFromClient: number;
  malformedFromUpstream: number;
  enforced: number;
};

export type ObserverOptions = {
  /** The session's own: its spans go under its server's name. */
  telemetry: SessionTelemetry;
  tools: ToolTable;
  log: Logger;
  context: CallContext;
  enforceOutput: boolean;
  /**
   * For traffic without a session: the conversation of a call, from its request's `_meta` (the client it names).
   * Without it, or once the traffic has a session, every call of the observer is the session's conversation.
   */
  conversationOf?: (meta: Record<string, unknown> | undefined) => string;
  /** The proxy's calls waiting for a later leg or a poll (logical-calls.ts); without it each request is a call. */
  calls?: LogicalCalls;
};

const INPUT_METHODS: ReadonlySet<string> = new Set(sc.MCP_INPUT_METHODS);
// Input requests the client has not answered yet, at most (a client that never answers must not grow the map).
const MAX_ASKED = 256;

// Requests in flight per session, at most (the SDK's clients time a request out after 60 s).
const MAX_PENDING = 10_000;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Observer of one session (a stdio child, one Streamable HTTP session, or one connection without a session). */
export class McpObserver {
  readonly #o: ObserverOptions;
  readonly #pending = new Map<string, Pending>();
  #unopened: Unopened[] = [];
  #conversationOf: ObserverOptions['conversationOf'];
  /** The conversation the last `tools/call` read passes on to the upstream in `_meta` (none: it has its own). */
  #passOn: string | undefined;
  /** Input the upstream asked the client for inside a call (a 2025 session), by the request's id, until answered. */
  readonly #asked = new Map<string, { call: OpenCall; since: number }>();
  readonly counts: TrafficCounts = {
    calls: 0,
    malformedFromClient: 0,
    malformedFromUpstream: 0,
    enforced: 0,
  };

  constructor(options: ObserverOptions) {
    this.#o = options;
    this.#conversationOf = options.conversationOf;
  }

  /** The MCP session this observer follows, once the upstream named it (Streamable HTTP). */
  setSession(id: string): void {
    this.#o.context.sessionId = id;
    this.#conversationOf = undefined;
  }

  /** Calls in flight. */
  get inFlight(): number {
    let n = this.#unopened.length;
    for (const p of this.#pending.values()) if (p.kind === 'call') n++;
    return n;
  }

  /** The calls in flight, as the log names what a shutdown cut: JSON-RPC id and tool. */
  callsInFlight(): { id: string; tool: string }[] {
    this.afterForward();
    const calls: { id: string; tool: string }[] = [];
    for (const [key, p] of this.#pending)
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
    if (this.#asked.size > 0) this.#inputAnswered(line);
    if (!mayBeWatched(line)) {
      if (line.length > 0 && !looksLikeJson(line)) this.#malformed('client');
      return line;
    }
    try {
      const messages = parseLine(line.toString('utf8'));
      if (!messages) {
        this.#malformed('client');
        return line;
      }
      let out = line;
      for (const m of messages) {
        const traceparent = this.#onClientMessage(m, calls);
        // A batch is observed but not rewritten: its calls' spans are the client's children all the same.
        if (traceparent && messages.length === 1)
          out = withTraceparent(line, traceparent, this.#passOn) ?? line;
      }
      return out;
    } catch (error) {
      this.#unreadable('client', error);
      return line;
    }
  }

  /**
   * What waits for the client's bytes to be on their way: the spans of the `tools/call` requests `fromClient`
   * passed (their input fingerprint, attributes and span objects). Called by the transport once it has written
   * what `fromClient` returned, in the same turn; anything else the observer is asked first runs it itself.
   */
  afterForward(): void {
    if (this.#unopened.length === 0) return;
    const calls = this.#unopened;
    this.#unopened = [];
    for (const u of calls) {
      try {
        this.#open(u);
      } catch (error) {
        this.#unreadable('client', error);
      }
    }
  }

  #open(u: Unopened): void {
    // The client and protocol of this very request (2026-07-28), read as its span opens.
    readEnvelope(u.request.meta, this.#o.context);
    const call = startCall(
      this.#o.telemetry.tracer(),
      u.opening,
      this.#o.context,
      u.request,
      this.#o.tools.get(u.request.tool),
    );
    if (u.resumes !== undefined) {
      call.logical = newLogicalCall();
      call.logical.resumes = u.resumes;
    }
    const prior = this.#pending.get(u.key);
    // A client that reuses an id in flight: the first call can no longer be matched to its answer.
    if (prior?.kind === 'call') endUnanswered(prior.call);
    this.#pending.set(u.key, { kind: 'call', call });
    if (this.#pending.size > MAX_PENDING) this.#forgetOldest();
  }

  /** Requests a session never sees answered are the client's to make: past a bound, the oldest is let go. */
  #forgetOldest(): void {
    const oldest = this.#pending.entries().next().value;
    if (!oldest) return;
    const [key, p] = oldest;
    this.#pending.delete(key);
    if (p.kind === 'call') endUnanswered(p.call);
    this.#o.log.once('pending-bound', 'warn', 'too many requests in flight in one session', {
      maxInFlight: MAX_PENDING,
      oldestEndsAs: 'upstream_exited',
    });
  }

  /**
   * A whole line from the upstream. Without `--enforce-output` it was already forwarded and the result is
   * ignored; with it, a replacement for a result that broke its tool's outputSchema.
   */
  fromUpstream(line: Buffer): Buffer | undefined {
    this.afterForward();
    if (this.#pending.size === 0 && !line.includes('list_changed')) {
      if (line.length > 0 && !looksLikeJson(line)) this.#malformed('upstream');
      return undefined;
    }
    try {
      const messages = parseLine(line.toString('utf8'));
      if (!messages) {
        this.#malformed('upstream');
        return undefined;
      }
      let replaced: Buffer | undefined;
      for (const m of messages) {
        const replacement = this.#onUpstreamMessage(m);
        if (replacement && messages.length === 1) replaced = replacement;
      }
      return replaced;
    } catch (error) {
      this.#unreadable('upstream', error);
      return undefined;
    }
  }

  /** Ends the calls of `keys` still in flight as `upstream_exited` (their request failed); how many. */
  endCalls(keys: readonly string[]): number {
    this.afterForward();
    let ended = 0;
    for (const key of keys) {
      const p = this.#pending.get(key);
      if (p?.kind !== 'call') continue;
      this.#pending.delete(key);
      endUnanswered(p.call);
      ended++;
    }
    return ended;
  }

  /** Ends every call still in flight as `upstream_exited`. */
  endAll(): number {
    this.afterForward();
    let ended = 0;
    for (const p of this.#pending.values()) {
      if (p.kind !== 'call') continue;
      endUnanswered(p.call);
      ended++;
    }
    this.#pending.clear();
    return ended;
  }

  #unreadable(side: 'client' | 'upstream', error: unknown): void {
    const what = side === 'client' ? 'a client message' : 'an upstream message';
    this.#o.log.once(`observe-${side}`, 'error', `could not read ${what}`, causeOf(error));
  }

  #malformed(side: 'client' | 'upstream'): void {
    if (side === 'client') this.counts.malformedFromClient++;
    else this.counts.malformedFromUpstream++;
    this.#o.log.once(
      `malformed-${side}`,
      'warn',
      `a line from the ${side} is not JSON-RPC; forwarded unchanged`,
      {
        direction: side === 'client' ? 'client->upstream' : 'upstream->client',
      },
    );
  }

  /** Returns the traceparent to send upstream for a tools/call (and sets `#passOn`). */
  #onClientMessage(m: RpcMessage, calls: string[] | undefined): string | undefined {
    if (m.kind !== 'request') return undefined;
    const key = idKey(m.id);
    const c = this.#o.context;
    if (m.method === 'initialize') {
      readInitialize(m.params, c);
      this.#pending.set(key, { kind: 'bootstrap' });
    } else if (m.method === 'server/discover') {
      // The stateless revision's bootstrap: no handshake, the client's name and version in `_meta`.
      readEnvelope(isRecord(m.params?._meta) ? m.params._meta : undefined, c);
      this.#pending.set(key, { kind: 'bootstrap' });
    } else if (m.method === 'tools/list') {
      this.#pending.set(key, { kind: 'list', firstPage: m.params?.cursor === undefined });
    } else if (m.method === sc.MCP_METHOD_TOOLS_CALL && typeof m.params?.name === 'string') {
      const startNs = nowNs();
      const meta = isRecord(m.params._meta) ? m.params._meta : undefined;
      const parent = parentOf(meta);
      const conversation = parent ? undefined : this.#sessionConversation(meta);
      // Passed on only where `_meta` has no conversation member at all: the client's own is never overwritten.
      this.#passOn = meta?.[sc.MCP_META_CONVERSATION_ID] === undefined ? conversation : undefined;
      // A later leg of a multi round-trip call goes on under its first leg's span (logical-calls.ts).
      const echoed = this.#o.calls ? echoedStateOf(m.params) : undefined;
      let resumes: string | undefined;
      if (echoed !== undefined && this.#o.calls) {
        const leg = this.#o.calls.resume(
          m.params.name,
          m.params.arguments,
          parent?.spanId ?? '',
          echoed,
        );
        if (leg.call) {
          this.#pending.set(key, { kind: 'call', call: leg.call });
          calls?.push(key);
          const context = leg.call.span.spanContext();
          return formatTraceparent(context.traceId, context.spanId, context.traceFlags);
        }
        resumes = leg.stateHash;
      }
      const ref = this.#o.telemetry.tracer().reserve(parent);
      const request = { id: String(m.id), tool: m.params.name, args: m.params.arguments, meta };
      this.#unopened.push({
        key,
        opening: { parent, ref, startNs, conversation },
        resumes,
        request,
      });
      calls?.push(key);
      this.counts.calls++;
      return formatTraceparent(ref.traceId, ref.spanId, ref.flags);
    } else if (
      (m.method === sc.MCP_METHOD_TASKS_GET || m.method === sc.MCP_METHOD_TASKS_RESULT) &&
      this.#o.calls
    ) {
      // A task's poll: counted for the call that created the task when its answer comes.
      const taskId = taskIdOf(m.params);
      const meta = isRecord(m.params?._meta) ? m.params._meta : undefined;
      if (taskId)
        this.#pending.set(key, { kind: 'poll', method: m.method, taskId, parent: parentOf(meta) });
    }
    return undefined;
  }

  /**
   * The session's conversation for a call outside any trace of the client's, unless it names a conversation of
   * its own (decision 0036): the observer's, or for traffic without a session, its client's.
   */
  #sessionConversation(meta: Record<string, unknown> | undefined): string | undefined {
    const own = meta?.[sc.MCP_META_CONVERSATION_ID];
    if (typeof own === 'string' && own.length > 0 && own.length <= 256) return undefined;
    return this.#conversationOf ? this.#conversationOf(meta) : this.#o.context.conversationId;
  }

  #onUpstreamMessage(m: RpcMessage): Buffer | undefined {
    if (m.kind === 'notification') {
      if (m.method === 'notifications/tools/list_changed')
        this.#o.log.log(
          'info',
          'upstream tools changed; contracts are read again from the next tools/list',
        );
      return undefined;
    }
    if (m.kind === 'request') {
      this.#inputAsked(m.id, m.method);
      return undefined;
    }
    if (m.id === null) return undefined;
    const key = idKey(m.id);
    const pending = this.#pending.get(key);
    if (!pending) return undefined;
    this.#pending.delete(key);
    // A 2026-07-28 server names itself in every answer: the session's spans are named by it.
    if (m.kind === 'result')
      readServer(m.result, this.#o.telemetry.server, pending.kind === 'bootstrap');
    if (pending.kind === 'bootstrap') {
      if (m.kind === 'result') this.#onInitialized(m.result);
      return undefined;
    }
    if (pending.kind === 'list') {
      if (m.kind === 'result') {
        const read = this.#o.tools.update(
          m.result,
          pending.firstPage,
          this.#o.telemetry.provider(),
        );
        this.#o.log.log('debug', 'tools listed', { tools: read });
      }
      return undefined;
    }
    if (pending.kind === 'poll') {
      if (m.kind === 'result') {
        const { method, taskId, parent } = pending;
        this.#o.calls?.answered(
          method,
          taskId,
          m.result,
          this.#o.context,
          this.#o.telemetry.tracer(),
          parent,
        );
      }
      return undefined;
    }
    const { call } = pending;
    if (m.kind === 'error') {
      endWithError(call, m.code, m.message);
      return undefined;
    }
    // An answer that leaves the call open (input asked for, a task): its span waits for the next leg or poll.
    const open = this.#o.calls ? unfinishedOf(m.result) : undefined;
    if (open) {
      this.#o.calls?.park(call, open);
      return undefined;
    }
    const broken = checkOutput(call, m.result);
    endWithResult(call, this.#o.context, m.result, broken);
    if (broken && this.#o.enforceOutput) {
      this.counts.enforced++;
      return enforcedResponse(m.id, call.tool, broken);
    }
    return undefined;
  }

  /**
   * The upstream asks the client for input while a call is open (a 2025 session, where the SDK's shim or the
   * handler sends `elicitation/create` and the like inside the `tools/call`): a round of that call when it is the
   * session's only one in flight (the request does not say which call it serves).
   */
  #inputAsked(id: string | number, method: string): void {
    if (!this.#o.calls || !INPUT_METHODS.has(method)) return;
    let call: OpenCall | undefined;
    for (const p of this.#pending.values()) {
      if (p.kind !== 'call') continue;
      if (call) return;
      call = p.call;
    }
    if (!call) return;
    if (this.#asked.size >= MAX_ASKED) this.#asked.clear();
    this.#asked.set(idKey(id), { call, since: performance.now() });
  }

  /** The client's answer to an input request: the round's wait counted for its call. */
  #inputAnswered(line: Buffer): void {
    try {
      for (const m of parseLine(line.toString('utf8')) ?? []) {
        if ((m.kind !== 'result' && m.kind !== 'error') || m.id === null) continue;
        const asked = this.#asked.get(idKey(m.id));
        if (!asked) continue;
        this.#asked.delete(idKey(m.id));
        asked.call.logical ??= newLogicalCall();
        inputRound(asked.call.logical, performance.now() - asked.since);
      }
    } catch (error) {
      this.#unreadable('client', error);
    }
  }

  /** The protocol version `initialize` agreed on (`server/discover` answers with the versions it supports). */
  #onInitialized(result: unknown): void {
    if (isRecord(result) && typeof result.protocolVersion === 'string')
      this.#o.context.protocolVersion = result.protocolVersion.slice(0, 64);
  }
}
