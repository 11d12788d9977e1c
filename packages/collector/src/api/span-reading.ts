// Stored spans as the trace and conversation routes send them: each with the collector's reading of it (its
// tool call and model call, calls/span-calls.ts), so the dashboard renders what the collector says a call is,
// and in the API's span shape (times as ISO 8601 and decimal nanoseconds, the status as an object).
import type { ModelCall } from '../calls/model-call.js';
import { type CallReading, readSpans } from '../calls/span-calls.js';
import type { StoredFacts } from '../calls/stored-join.js';
import type { StoredSpan } from '../storage/contract.js';
import { callOut, isoOfNs } from './call-out.js';
import type { ModelCallOut, SpanCall, SpanOut } from './schemas.js';

/**
 * The spans with `call` and `modelCall`, in the same order; `stored`, the writers' join of logical calls
 * (stored-join.ts), when read.
 */
export function withReadings(
  spans: readonly StoredSpan[],
  stored?: ReadonlyMap<string, StoredFacts>,
): SpanOut[] {
  const readings = readSpans(spans, stored);
  return spans.map((s, i) => {
    const r = readings[i];
    return {
      traceId: s.traceId,
      spanId: s.spanId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      kind: s.kind,
      startTime: isoOfNs(s.startNs),
      startTimeUnixNano: s.startNs.toString(),
      endTimeUnixNano: s.endNs.toString(),
      durationMs: Number(s.endNs > s.startNs ? s.endNs - s.startNs : 0n) / 1e6,
      status: { code: s.statusCode, message: s.statusMessage },
      attributes: s.attributes,
      events: s.events.map((e) => ({
        timeUnixNano: e.timeNs.toString(),
        name: e.name,
        attributes: e.attributes,
      })),
      links: s.links,
      resource: s.resource,
      scope: { name: s.scopeName, version: s.scopeVersion },
      truncatedAttributes: s.truncatedKeys,
      droppedAttributes: s.droppedAttributes,
      call: r?.call ? spanCallOut(r.call) : null,
      modelCall: r?.modelCall ? modelCallOut(r.modelCall) : null,
      service: r?.service ?? null,
    };
  });
}

function spanCallOut(c: CallReading): SpanCall {
  return {
    ...callOut(c),
    arguments: c.arguments,
    result: c.result,
    replay: c.replay,
    failedAttempts: c.failedAttempts,
    joinedTo: c.joinedTo,
    joinedToTraceId: c.joinedToTraceId,
  };
}

function modelCallOut(m: ModelCall): ModelCallOut {
  return {
    system: m.system,
    model: m.model,
    inputTokens: m.inputTokens,
    outputTokens: m.outputTokens,
    finishReason: m.finishReason,
    source: m.source,
  };
}
