// A recorded call as the API reports it (an `/api/calls` item, and the `call` of a span in a trace): one mapping
// from the call model's fields, whether storage read them back from its columns or the reading of a stored span
// took them from its attributes, so both routes say the same of the same call: the code by the one rule
// (calls/code.ts), an unknown partial effect as null, times in ISO 8601.
import type { RecordedCall } from '../calls/call-record.js';
import { callCode } from '../calls/code.js';
import { isComplete } from '../calls/logical-call.js';
import { sideOfKind } from '../calls/sides.js';
import { PARTIAL_EFFECT_UNKNOWN } from '../calls/tool-call.js';
import type { Call, CallIssue } from './schemas.js';

/** ISO-8601 time of a nanosecond timestamp (millisecond precision). */
export const isoOfNs = (ns: bigint): string => new Date(Number(ns / 1_000_000n)).toISOString();

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

export function callOut(c: RecordedCall): Call {
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
    clientVersion: c.clientVersion,
    resultBytes: c.resultBytes,
    resultTokens: c.resultTokens,
    ...logicalOut(c),
  };
}

/** A call's logical facts as the API says them: one leg, no wait, no task, one part when the span said nothing. */
function logicalOut(
  c: RecordedCall,
): Pick<Call, 'legs' | 'inputWaitMs' | 'task' | 'parts' | 'complete'> {
  const l = c.logical;
  if (l === null) return ONE_LEG;
  const t = l.task;
  return {
    legs: l.legs,
    inputWaitMs: Math.round(l.inputWaitMs * 1000) / 1000,
    task: t ? { polls: t.polls, pollIntervalMs: t.pollIntervalMs, status: t.status } : null,
    parts: l.parts,
    complete: isComplete(l),
  };
}
const ONE_LEG = Object.freeze({ legs: 1, inputWaitMs: 0, task: null, parts: 1, complete: true });
