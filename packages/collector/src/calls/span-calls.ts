// The reading of stored spans that the trace and conversation pages show: each span's tool call (the same
// recorded call as a stored call row, with its captured payloads) and model call, by the functions intake used,
// the sides paired and the parts of a logical call joined by the rules the writer applied.
import * as sc from '@toolscope/instrument/semconv';
import type { RecordedCall } from './call-record.js';
import type { SpanRef } from './logical-call.js';
import { groupParts, mergeParts } from './logical-join.js';
import { type ModelCall, modelCallOf } from './model-call.js';
import { pairTrace } from './pairing.js';
import { type CallSpan, recogniseCall } from './recognise.js';
import { applyStored, type StoredFacts } from './stored-join.js';
import { ATTR_SERVICE_NAME, type ToolCall, toolCallOf } from './tool-call.js';

/** A span's call as a trace shows it: the recorded call, the payloads kept when capture was on, a replay mark. */
export type CallReading = RecordedCall & {
  /** The arguments and the result as stored (redacted JSON), when content capture was on. */
  arguments: string | null;
  result: string | null;
  /** The answer came from the idempotency store, not from running the tool again. */
  replay: boolean;
  /** Attempts inside this call that failed before its outcome (the executor's own retries). */
  failedAttempts: FailedAttempt[];
  /** A part of another span's logical call (logical-join.ts): that span's id. Its own reading is the part's. */
  joinedTo: string | null;
  /** The trace of the span `joinedTo` names (another trace when the parts were in separate traces). */
  joinedToTraceId: string | null;
};

export type FailedAttempt = { attempt: number | null; code: string | null; reason: string | null };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function failedAttemptsOf(span: CallSpan): FailedAttempt[] {
  const out: FailedAttempt[] = [];
  for (const e of span.events) {
    if (e.name !== sc.EVENT_TOOLSCOPE_ATTEMPT_FAILED) continue;
    const a = e.attributes;
    const attempt = a[sc.ATTR_TOOLSCOPE_ATTEMPT];
    out.push({
      attempt: typeof attempt === 'number' && Number.isInteger(attempt) ? attempt : null,
      code: str(a[sc.ATTR_TOOLSCOPE_ERROR_CODE]),
      reason: str(a[sc.ATTR_TOOLSCOPE_ERROR_REASON]) ?? str(a[sc.ATTR_EXCEPTION_MESSAGE]),
    });
  }
  return out;
}

export type IdentifiedSpan = CallSpan & {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
};

/**
 * The parts of each logical call among one trace's calls joined: the holder's call becomes the joined call, the
 * other parts name the holder (`joinedTo`).
 */
function joinParts(
  views: readonly (ToolCall & { traceId: string; spanId: string; parentSpanId: string | null })[],
  indexes: readonly number[],
  calls: (ToolCall | null)[],
  joinedTo: Map<number, SpanRef>,
): void {
  if (!views.some((v) => v.logical !== null)) return;
  for (const g of groupParts(views)) {
    if (g.holder === null) continue;
    const holder = views[g.holder] as ToolCall & { traceId: string; spanId: string };
    const merged = mergeParts(
      g.members.map((m) => {
        const c = views[m] as ToolCall;
        return { startNs: c.startNs, durationMs: c.durationMs, logical: c.logical, outcome: c };
      }),
    );
    const at = indexes[g.holder] as number;
    calls[at] = {
      ...(calls[at] as ToolCall),
      ...merged.outcome,
      startNs: merged.startNs,
      durationMs: merged.durationMs,
      logical: merged.logical,
    };
    for (const m of g.members)
      if (m !== g.holder)
        joinedTo.set(indexes[m] as number, { traceId: holder.traceId, spanId: holder.spanId });
  }
}

export type SpanReading = {
  call: CallReading | null;
  modelCall: ModelCall | null;
  /** The service that sent the span (its resource's service.name). */
  service: string | null;
};

function payload(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function contentOf(
  span: CallSpan,
): Pick<CallReading, 'arguments' | 'result' | 'replay' | 'failedAttempts'> {
  const r = recogniseCall(span);
  const a = span.attributes;
  return {
    arguments: r?.argsKey === undefined ? null : payload(a[r.argsKey]),
    result: r?.resultKey === undefined ? null : payload(a[r.resultKey]),
    replay: a[sc.ATTR_TOOLSCOPE_IDEMPOTENT_REPLAY] === true,
    failedAttempts: failedAttemptsOf(span),
  };
}

/**
 * The reading of each span, in the spans' order. `paired` follows the pairing rule within each trace, as the
 * writer applied it when the spans were stored; the parts of logical calls are joined within each trace, then
 * `stored` (the writers' join, across traces: stored-join.ts) says what it knows.
 */
export function readSpans(
  spans: readonly IdentifiedSpan[],
  stored?: ReadonlyMap<string, StoredFacts>,
): SpanReading[] {
  const own: (ToolCall | null)[] = spans.map((s) => toolCallOf(s));
  const calls = [...own];
  const byTrace = new Map<string, number[]>();
  calls.forEach((c, i) => {
    const traceId = (spans[i] as IdentifiedSpan).traceId;
    if (!c) return;
    const list = byTrace.get(traceId);
    if (list) list.push(i);
    else byTrace.set(traceId, [i]);
  });
  const paired = new Set<number>();
  const joinedTo = new Map<number, SpanRef>();
  for (const indexes of byTrace.values()) {
    const views = indexes.map((i) => {
      const s = spans[i] as IdentifiedSpan;
      return {
        ...(calls[i] as ToolCall),
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId,
      };
    });
    for (const k of pairTrace(views, []).batchPaired) paired.add(indexes[k] as number);
    joinParts(views, indexes, calls, joinedTo);
  }
  if (stored) applyStored(spans, own, calls, joinedTo, stored);
  return spans.map((s, i) => {
    const c = calls[i];
    return {
      call: c
        ? {
            ...c,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId,
            paired: paired.has(i),
            ...contentOf(s),
            joinedTo: joinedTo.get(i)?.spanId ?? null,
            joinedToTraceId: joinedTo.get(i)?.traceId ?? null,
          }
        : null,
      modelCall: c ? null : modelCallOf(s),
      service: str(s.resource[ATTR_SERVICE_NAME]),
    };
  });
}
