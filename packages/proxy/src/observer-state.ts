// What the proxy's observer of one session keeps between messages (observer.ts), shared by the modules that read
// each direction's messages (client-messages.ts, upstream-messages.ts): the requests in flight by JSON-RPC id,
// the calls still to open, the conversation passed on, the input rounds asked for, and the traffic counts.

import { endUnanswered } from './call-end.js';
import type { CallContext, OpenCall, Unopened } from './call-span.js';
import { InputRounds } from './input-rounds.js';
import { causeOf, type Logger } from './log.js';
import type { LogicalCalls } from './logical-calls.js';
import type { ParentRef } from './otlp/proxy-span.js';
import type { SessionTelemetry } from './telemetry.js';
import type { ToolTable } from './tool-table.js';

export type Pending =
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

export type ObserverState = {
  readonly o: ObserverOptions;
  /** Requests in flight, by `idKey` of their JSON-RPC id. */
  readonly pending: Map<string, Pending>;
  /** `tools/call` requests read but not yet opened as spans (observer.ts, `afterForward`). */
  unopened: Unopened[];
  conversationOf: ObserverOptions['conversationOf'];
  /** The conversation the last `tools/call` read passes on to the upstream in `_meta` (none: it has its own). */
  passOn: string | undefined;
  readonly rounds: InputRounds;
  readonly counts: TrafficCounts;
};

export function newObserverState(options: ObserverOptions): ObserverState {
  return {
    o: options,
    pending: new Map(),
    unopened: [],
    conversationOf: options.conversationOf,
    passOn: undefined,
    rounds: new InputRounds(),
    counts: { calls: 0, malformedFromClient: 0, malformedFromUpstream: 0, enforced: 0 },
  };
}

// Requests in flight per session, at most (the SDK's clients time a request out after 60 s).
const MAX_PENDING = 10_000;

/** Tracks a request in flight; past the bound, the oldest is let go. */
export function trackRequest(s: ObserverState, key: string, pending: Pending): void {
  s.pending.set(key, pending);
  if (s.pending.size > MAX_PENDING) forgetOldest(s);
}

/** Requests a session never sees answered are the client's to make: past a bound, the oldest is let go. */
function forgetOldest(s: ObserverState): void {
  const oldest = s.pending.entries().next().value;
  if (!oldest) return;
  const [key, p] = oldest;
  s.pending.delete(key);
  if (p.kind === 'call') endUnanswered(p.call);
  s.o.log.once('pending-bound', 'warn', 'too many requests in flight in one session', {
    maxInFlight: MAX_PENDING,
    oldestEndsAs: 'upstream_exited',
  });
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export type Side = 'client' | 'upstream';

export function unreadable(s: ObserverState, side: Side, error: unknown): void {
  const what = side === 'client' ? 'a client message' : 'an upstream message';
  s.o.log.once(`observe-${side}`, 'error', `could not read ${what}`, causeOf(error));
}

export function malformed(s: ObserverState, side: Side): void {
  if (side === 'client') s.counts.malformedFromClient++;
  else s.counts.malformedFromUpstream++;
  s.o.log.once(
    `malformed-${side}`,
    'warn',
    `a line from the ${side} is not JSON-RPC; forwarded unchanged`,
    {
      direction: side === 'client' ? 'client->upstream' : 'upstream->client',
    },
  );
}
