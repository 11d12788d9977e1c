// A tool call as the API reports it (an `/api/calls` item, and the `call` of a span in a trace): one mapping
// from the named fields, whether they were read back from storage's columns or from a stored span, so both
// routes say the same of the same call (the code by the one rule, an unknown partial effect as null).
import { callCode } from './code.js';
import { sideOfKind } from './sides.js';
import { PARTIAL_EFFECT_UNKNOWN, type ToolCall } from './tool-call.js';

export type CallIssue = { path: string; code: string; message: string };

/** One recorded tool call: the server's (or the tool's own) view, or the client's. */
export type CallRecord = {
  traceId: string;
  spanId: string;
  tool: string;
  version: string | null;
  schemaHash: string | null;
  attempt: number;
  /** The code rule's value (calls/code.ts): never null for a failed call. */
  code: string | null;
  retryable: boolean | null;
  /** null when the span did not say (a caller's span, most foreign dialects). */
  partialEffect: boolean | null;
  durationMs: number;
  startTime: string;
  issues: CallIssue[];
  inputHash: string | null;
  inputShape: string | null;
  /** Keyed hash of the result as the model read it: equal results, equal hash. */
  outputHash: string | null;
  errorType: string | null;
  reason: string | null;
  effect: string | null;
  conversationId: string | null;
  callId: string | null;
  service: string | null;
  kind: number;
  parentSpanId: string | null;
  side: 'client' | 'server';
  /** The dialect the call was read from (dialects.ts); null only for rows of an unknown past. */
  source: string | null;
  /** A client (or proxy) row whose server row is known: the call is counted from the server's row. */
  paired: boolean;
  /** The row is `toolscope proxy`'s view of the call: a hop between the agent and the server. */
  proxy: boolean;
  /** What the call threw (the span's last `exception` event), the message redacted; null when it did not. */
  exceptionType: string | null;
  exceptionMessage: string | null;
  /** The MCP client's name, when the span names it (`toolscope.mcp.client.name`). */
  clientName: string | null;
  /** UTF-8 bytes and approximate tokens of the result as the model received it, when the span says. */
  resultBytes: number | null;
  resultTokens: number | null;
};

/** The fields of a call a record is made of; `source` may be unknown for rows stored before it was kept. */
export type RecordedFields = Omit<ToolCall, 'source' | 'idempotencyKeyHash'> & {
  source: string | null;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  paired: boolean;
};

function issuesOf(json: string | null): CallIssue[] {
  if (json === null) return [];
  try {
    const v: unknown = JSON.parse(json);
    // Written by toolCallOf, which re-serializes the issues it checked.
    return Array.isArray(v) ? (v as CallIssue[]) : [];
  } catch {
    return [];
  }
}

/** ISO-8601 time of a nanosecond timestamp (millisecond precision). */
export const isoOfNs = (ns: bigint): string => new Date(Number(ns / 1_000_000n)).toISOString();

export function callRecordOf(c: RecordedFields): CallRecord {
  return {
    traceId: c.traceId,
    spanId: c.spanId,
    tool: c.tool,
    version: c.version,
    schemaHash: c.schemaHash,
    attempt: c.attempt,
    code: callCode(c.code, c.errorType, c.isError),
    retryable: c.retryable === null ? null : c.retryable === 1,
    partialEffect: c.partialEffect === PARTIAL_EFFECT_UNKNOWN ? null : c.partialEffect === 1,
    durationMs: Math.round(c.durationMs * 1000) / 1000,
    startTime: isoOfNs(c.startNs),
    issues: issuesOf(c.issues),
    inputHash: c.inputHash,
    inputShape: c.inputShape,
    outputHash: c.outputHash,
    errorType: c.errorType,
    reason: c.reason,
    effect: c.effect,
    conversationId: c.conversationId,
    callId: c.callId,
    service: c.service,
    kind: c.kind,
    parentSpanId: c.parentSpanId,
    side: sideOfKind(c.kind),
    source: c.source,
    paired: c.paired,
    proxy: c.proxy,
    exceptionType: c.exceptionType,
    exceptionMessage: c.exceptionMessage,
    clientName: c.clientName,
    resultBytes: c.resultBytes,
    resultTokens: c.resultTokens,
  };
}
