// Stored spans as the trace and conversation routes send them: each with the collector's reading of it (its
// tool call and model call, calls/span-calls.ts), so the dashboard renders what the collector says a call is.
import { readSpans } from '../calls/span-calls.js';
import type { StoredSpan } from '../storage/contract.js';
import type { SpanOut } from './schemas.js';

/** The spans with `call` and `modelCall`, in the same order. */
export function withReadings(spans: readonly StoredSpan[]): SpanOut[] {
  const readings = readSpans(
    spans.map((s) => ({
      traceId: s.traceId,
      spanId: s.spanId,
      parentSpanId: s.parentSpanId,
      attributes: s.attributes,
      name: s.name,
      scopeName: s.scope.name,
      kind: s.kind,
      statusCode: s.status.code,
      startNs: BigInt(s.startTimeUnixNano),
      endNs: BigInt(s.endTimeUnixNano),
      resource: s.resource,
      events: s.events,
    })),
  );
  return spans.map((s, i) => {
    const r = readings[i];
    return {
      ...s,
      call: r?.call ?? null,
      modelCall: r?.modelCall ?? null,
      service: r?.service ?? null,
    };
  });
}
