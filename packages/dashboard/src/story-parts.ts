// The parts of one logical call among a story's spans: the spans the collector names as parts of another span's
// call (`call.joinedTo`, a leg or a poll another process served), by the span holding each call, in its own trace
// or, for a client that sent no trace context, another (`call.joinedToTraceId`).
import type { SpanOut } from '@toolscope/collector/schemas';
import type { Side } from './story-model';

/** The parts of logical calls among these spans, by the span holding each call, in start order. */
export function partsByHolder(spans: readonly SpanOut[]): Map<string, Side[]> {
  const out = new Map<string, Side[]>();
  for (const span of spans) {
    const call = span.call;
    if (!call?.joinedTo) continue;
    const key = `${call.joinedToTraceId ?? span.traceId}\u0000${call.joinedTo}`;
    const list = out.get(key);
    if (list) list.push({ span, call });
    else out.set(key, [{ span, call }]);
  }
  return out;
}
