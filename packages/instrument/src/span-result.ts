// What a finished call adds to its span, and how a stored idempotent outcome becomes an envelope again.
import type { Attributes } from '@opentelemetry/api';
import type { z } from 'zod';
import type { ToolResult } from './contract.js';
import { failure } from './envelope.js';
import { exceptionAttributes } from './exception.js';
import type { Hasher } from './hashing.js';
import type { IdempotencyRecord } from './idempotency.js';
import { toValidationIssues } from './issues.js';
import { outputFacts } from './output-facts.js';
import { parseValue } from './parse.js';
import * as sc from './semconv.js';
import { envelopeFailure, setFailure } from './span-contract.js';
import type { SafeSpan } from './telemetry.js';

type ExecutedLike = {
  result: ToolResult<unknown>;
  replay: boolean;
  error?: unknown;
  rawOutput?: unknown;
};

/** Sets the end-of-call attributes (docs/span-contract.md) on the span. */
export function recordResult(
  span: SafeSpan,
  executed: ExecutedLike,
  firstAttempt: number,
  captureResult: ((value: unknown) => string) | undefined,
  hasher: Hasher,
  measureOutput = true,
): void {
  const r = executed.result;
  if (!r.ok && 'error' in executed) {
    span.addEvent(
      sc.EVENT_EXCEPTION,
      exceptionAttributes(executed.error, captureResult !== undefined),
    );
  }
  // What the caller gets back is the envelope: its size is what the model pays for (unless an adapter
  // measures what it sends instead, as the MCP adapter does). A span that goes nowhere is not measured.
  const attributes: Attributes = {};
  if (measureOutput && span.recording) {
    outputFacts(r, hasher, attributes);
  }
  if (r.attempt !== firstAttempt) attributes[sc.ATTR_TOOLSCOPE_ATTEMPT] = r.attempt;
  if (executed.replay) attributes[sc.ATTR_TOOLSCOPE_IDEMPOTENT_REPLAY] = true;
  if (!r.ok) setFailure(attributes, envelopeFailure(r));
  if (captureResult) {
    attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = captureResult(r.ok ? r.data : r);
    if (!r.ok && r.code === 'INVALID_OUTPUT' && executed.rawOutput !== undefined)
      attributes[sc.ATTR_TOOLSCOPE_OUTPUT_REJECTED] = captureResult(executed.rawOutput);
  }
  span.setAttributes(attributes);
}

/** Rebuilds the envelope of a completed idempotent call; its output is parsed again with today's schema. */
export async function replayRecord(
  tool: { name: string; output: z.ZodType },
  outcome: IdempotencyRecord['outcome'],
  attempt: number,
): Promise<ToolResult<unknown>> {
  if (outcome.kind === 'rejected') {
    return failure({
      code: 'REJECTED',
      tool: tool.name,
      attempt,
      retryable: false,
      partialEffect: false,
      reason: outcome.reason,
      message: outcome.message,
    });
  }
  const parsed = await parseValue(tool.output, outcome.output);
  if (parsed.kind === 'ok') return { ok: true, data: parsed.data, attempt };
  return failure({
    code: parsed.kind === 'invalid' ? 'INVALID_OUTPUT' : 'FAILED',
    tool: tool.name,
    attempt,
    retryable: false,
    partialEffect: false,
    ...(parsed.kind === 'invalid' ? { issues: toValidationIssues(parsed.issues) } : {}),
  });
}
