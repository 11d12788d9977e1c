// The writers' join of the parts of logical calls (process/join.ts), as the reading of stored spans applies it
// (span-calls.ts): parts in separate traces are joined only there, so a trace's reading takes, for each span with
// a stored row of facts, what that row says (decision 0054): a holder's row carries the joined call, a part's row
// names the span holding its call, in whatever trace.
import type { SpanRef } from './logical-call.js';
import { type CallOutcome, outcomeOf } from './logical-join.js';
import type { ToolCall } from './tool-call.js';

/** What a span's stored row says of its logical call. */
export type StoredFacts = {
  /** A part of another row's call. */
  joined: boolean;
  /** For a part: the span holding its call, followed to the end (null for a row stored before it was kept). */
  holder: SpanRef | null;
  /** The row's call: for a holder, the joined call. */
  call: CallOutcome & Pick<ToolCall, 'startNs' | 'durationMs' | 'logical'>;
};

/** The key of a span in a map of stored facts. */
export const factsKey = (traceId: string, spanId: string) => `${traceId}\u0000${spanId}`;

/**
 * Each call's reading made what its stored row says: a part reads as itself and names its holder (a row stored
 * before holders were kept keeps the holder found within its trace); any other row with facts reads as stored.
 */
export function applyStored(
  spans: readonly { traceId: string; spanId: string }[],
  own: readonly (ToolCall | null)[],
  calls: (ToolCall | null)[],
  joinedTo: Map<number, SpanRef>,
  stored: ReadonlyMap<string, StoredFacts>,
): void {
  spans.forEach((s, i) => {
    const c = own[i];
    const f = c ? stored.get(factsKey(s.traceId, s.spanId)) : undefined;
    if (!c || !f) return;
    if (f.joined) {
      calls[i] = c;
      if (f.holder) joinedTo.set(i, f.holder);
      return;
    }
    joinedTo.delete(i);
    const { startNs, durationMs, logical } = f.call;
    calls[i] = { ...c, ...outcomeOf(f.call), startNs, durationMs, logical };
  });
}
