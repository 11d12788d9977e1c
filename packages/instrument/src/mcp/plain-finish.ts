// The end of a plain tool's span, run once its response has gone back (after-response.ts): what the result means
// (outcome, error code, issues), what the model receives (size and hash of content plus structuredContent), and
// what the handler threw; then the span ends with the time the response was ready.
import type { Attributes } from '@opentelemetry/api';
import { exceptionAttributes } from '../exception.js';
import { hashCanonical } from '../fingerprint.js';
import { mcpOutputFacts } from '../output-facts.js';
import * as sc from '../semconv.js';
import type { SafeSpan } from '../telemetry.js';
import { outcomeOfPlainResult } from './call-result.js';
import { isRecord } from './sdk-access.js';
import type { ServerState } from './server-state.js';

/** One answered call whose span is still open. */
export type PlainCall = {
  state: ServerState;
  span: SafeSpan;
  result: unknown;
  /** The input's canonical JSON, copied when the call arrived; its keyed hash goes on the span at the end. */
  input: Uint8Array | string | undefined;
  /** The call's arguments, kept only for a failed result (whose input issues are read again from them). */
  args: unknown;
  schemas: { input: unknown; output: unknown } | undefined;
  /** What the handler threw, read when the response was ready (the request itself is not kept). */
  threw: { error: unknown } | undefined;
  /** The `structuredContent` the handler returned, kept for a failed result (the SDK may have refused it). */
  output: { structuredContent: unknown } | undefined;
  /** `performance.now()` when the handler's result was ready. */
  endTime: number;
};

/** Sets the end-of-call attributes of a plain tool's span and ends it, whatever reading the result does. */
export function finishPlainCall(call: PlainCall): void {
  let error: string | undefined;
  try {
    error = recordPlainResult(call);
  } finally {
    call.span.end(error, call.endTime);
  }
}

/** The end-of-call attributes and exception event; returns the error code the span ends with, if any. */
function recordPlainResult(call: PlainCall): string | undefined {
  const { state, span, result } = call;
  const outcome = outcomeOfPlainResult(result, call.args, call.schemas, call.output);
  // What the model receives: content plus structuredContent, measured without a copy (output-size.ts).
  const end: Attributes = {};
  if (span.recording) {
    if (call.input !== undefined)
      end[sc.ATTR_TOOLSCOPE_INPUT_HASH] = hashCanonical(call.input, state.hasher);
    mcpOutputFacts(result, state.hasher, end);
  }
  if (!outcome.ok) {
    end[sc.ATTR_ERROR_TYPE] = sc.ERROR_TYPE_TOOL_ERROR;
    end[sc.ATTR_TOOLSCOPE_ERROR_CODE] = outcome.code;
    end[sc.ATTR_TOOLSCOPE_RETRYABLE] = outcome.retryable;
    end[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = outcome.partialEffect;
    if (outcome.reason) end[sc.ATTR_TOOLSCOPE_ERROR_REASON] = outcome.reason;
    if (outcome.issues) end[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(outcome.issues);
  }
  if (state.capture && isRecord(result)) {
    end[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = state.redactor(
      result.structuredContent ?? result.content,
    );
  }
  span.setAttributes(end);
  const threw = outcome.ok ? undefined : call.threw;
  if (threw) span.addEvent(sc.EVENT_EXCEPTION, exceptionAttributes(threw.error, state.capture));
  return outcome.ok ? undefined : outcome.code;
}
