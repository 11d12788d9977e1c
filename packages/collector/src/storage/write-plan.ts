// The CPU-heavy half of a write, done where the spans were decoded: each span encoded for its block, and each
// tool call turned into its column values. The plan holds only strings and numbers, so it crosses to the
// writer thread cheaply; what needs the database (ids, de-duplication, rollups) happens there.
import type { NormalizedSpan } from '../otlp/model.js';
import { encodeSpan } from './span-codec.js';
import { codeKey, KIND_CLIENT, toolCallOf } from './tool-call.js';

/** Column values of a tool_calls row, in insert order after trace_seq. */
export type CallValues = [
  traceId: string,
  spanId: string,
  parentSpanId: string | null,
  tool: string,
  version: string | null,
  schemaHash: string | null,
  attempt: number,
  code: string | null,
  errorType: string | null,
  reason: string | null,
  isError: number,
  retryable: number | null,
  partialEffect: number,
  effect: string | null,
  durationMs: number,
  startNs: bigint,
  issues: string | null,
  inputHash: string | null,
  inputShape: string | null,
  idempotencyKeyHash: string | null,
  conversationId: string | null,
  callId: string | null,
  kind: number,
  service: string | null,
];

/** What a rollup needs of a call (client-side spans are not counted: they would double the server's). */
export type RollupInput = {
  tool: string;
  version: string;
  code: string;
  isError: boolean;
  durationMs: number;
  startNs: bigint;
};

export type PlannedSpan = {
  traceId: string;
  spanId: string;
  startNs: bigint;
  /** Index into `WritePlan.resources`. */
  resource: number;
  json: string;
  call: CallValues | null;
  rollup: RollupInput | null;
};

export type WritePlan = { resources: string[]; spans: PlannedSpan[] };

export function planWrite(spans: NormalizedSpan[]): WritePlan {
  const resources: string[] = [];
  const resourceIndex = new Map<object, number>();
  const planned: PlannedSpan[] = [];
  for (const span of spans) {
    let resource = resourceIndex.get(span.resource);
    if (resource === undefined) {
      resource = resources.push(JSON.stringify(span.resource)) - 1;
      resourceIndex.set(span.resource, resource);
    }
    const c = toolCallOf(span);
    planned.push({
      traceId: span.traceId,
      spanId: span.spanId,
      startNs: span.startNs,
      resource,
      json: encodeSpan(span),
      call: c
        ? [
            span.traceId,
            span.spanId,
            span.parentSpanId,
            c.tool,
            c.version,
            c.schemaHash,
            c.attempt,
            c.code,
            c.errorType,
            c.reason,
            c.isError ? 1 : 0,
            c.retryable,
            c.partialEffect,
            c.effect,
            c.durationMs,
            c.startNs,
            c.issues,
            c.inputHash,
            c.inputShape,
            c.idempotencyKeyHash,
            c.conversationId,
            c.callId,
            c.kind,
            c.service,
          ]
        : null,
      rollup:
        c && c.kind !== KIND_CLIENT
          ? {
              tool: c.tool,
              version: c.version ?? '',
              code: codeKey(c),
              isError: c.isError,
              durationMs: c.durationMs,
              startNs: c.startNs,
            }
          : null,
    });
  }
  return { resources, spans: planned };
}
