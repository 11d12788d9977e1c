// The end of a plain tool's span, on the response path (decision 0047): what the result means (outcome, error
// code, issues), what the model receives (size and hash of content plus structuredContent), what the handler
// threw, and what the call went through (legs, task); then the span ends, before the response goes back, so a
// flush of the user's own provider right after the response exports it.
import type { Attributes } from '@opentelemetry/api';
import { exceptionAttributes } from '../exception.js';
import { hashCanonical } from '../fingerprint.js';
import type { LogicalCall } from '../logical-call.js';
import * as sc from '../semconv.js';
import {
  type CallFailure,
  setFailure,
  setLogical,
  setMcpResult,
  toolErrorFailure,
} from '../span-contract.js';
import type { SafeSpan } from '../telemetry.js';
import { outcomeOfPlainResult } from './call-result.js';
import { isRecord } from './sdk-access.js';
import type { ServerState } from './server-state.js';
import { outputFor, thrownFor } from './thrown.js';

/** A plain tool's call as its end needs it. */
export type PlainEnd = {
  state: ServerState;
  span: SafeSpan;
  /** The input's canonical JSON copied when the call arrived, or its keyed hash once taken (a parked call). */
  input: Uint8Array | string | undefined;
  inputHashed: boolean;
  schemas: { input: unknown; output: unknown } | undefined;
  logical: LogicalCall | undefined;
};

/**
 * Sets the end-of-call attributes of a plain tool's span from its final answer and ends it, whatever reading the
 * result does. `args` and `extra` are the final leg's (a failed result's issues and cause are read from them).
 */
export function endPlainCall(
  call: PlainEnd,
  result: unknown,
  args: unknown,
  extra: unknown,
  endTime?: number,
): void {
  let error: string | undefined;
  try {
    error = recordPlainResult(call, result, args, extra);
  } finally {
    call.span.end(error, endTime);
  }
}

/** Ends a plain tool's span with a failure that is not a result (a protocol error, a task that failed). */
export function endPlainFailure(
  call: PlainEnd,
  failure: CallFailure,
  message: string,
  endTime?: number,
): void {
  try {
    const end: Attributes = {};
    if (call.span.recording) {
      const hash = inputHashOf(call);
      if (hash !== undefined) end[sc.ATTR_TOOLSCOPE_INPUT_HASH] = hash;
      if (call.logical) setLogical(end, call.logical);
    }
    call.span.setAttributes(setFailure(end, failure));
  } finally {
    call.span.end(message, endTime);
  }
}

/** The input's keyed hash: taken now from the bytes copied at arrival, or the one a parked call already took. */
export function inputHashOf(call: PlainEnd): string | undefined {
  const input = call.input;
  if (input === undefined) return undefined;
  return call.inputHashed ? (input as string) : hashCanonical(input, call.state.hasher);
}

/** The end-of-call attributes and exception event; returns the error code the span ends with, if any. */
function recordPlainResult(
  call: PlainEnd,
  result: unknown,
  args: unknown,
  extra: unknown,
): string | undefined {
  const { state, span } = call;
  const failed = isRecord(result) && result.isError === true;
  const outcome = failed
    ? outcomeOfPlainResult(result, args, call.schemas, outputFor(extra))
    : undefined;
  const end: Attributes = {};
  if (span.recording) {
    const hash = inputHashOf(call);
    if (hash !== undefined) end[sc.ATTR_TOOLSCOPE_INPUT_HASH] = hash;
    // What the model receives: content plus structuredContent, measured without a copy (output-size.ts).
    setMcpResult(end, result, state.hasher, state.capture ? state.redactor : undefined);
    if (call.logical) setLogical(end, call.logical);
  }
  if (outcome && !outcome.ok) setFailure(end, toolErrorFailure(outcome));
  span.setAttributes(end);
  if (!outcome || outcome.ok) return undefined;
  const threw = thrownFor(extra);
  if (threw) span.addEvent(sc.EVENT_EXCEPTION, exceptionAttributes(threw.error, state.capture));
  return outcome.code;
}
