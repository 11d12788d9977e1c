// Builders of the envelope's failures with fixed, value-free messages (docs/defining-tools.md).
import type { ToolFailure, ValidationIssue } from './contract.js';
import type { ErrorCode } from './semconv.js';

export type FailureInit = {
  code: ErrorCode;
  tool: string;
  attempt: number;
  retryable: boolean;
  partialEffect: boolean;
  reason?: string | undefined;
  issues?: ValidationIssue[] | undefined;
  /** Only for REJECTED: the tool author's own domain message. */
  message?: string | undefined;
};

/** A failure envelope; the message says what happened and what to do, never with payload values. */
export function failure(init: FailureInit): ToolFailure {
  const result: ToolFailure = {
    ok: false,
    code: init.code,
    message: init.message ?? defaultMessage(init),
    retryable: init.retryable,
    partialEffect: init.partialEffect,
    attempt: init.attempt,
  };
  if (init.issues !== undefined) result.issues = init.issues;
  if (init.reason !== undefined) result.reason = init.reason;
  return result;
}

function defaultMessage(init: FailureInit): string {
  const { tool } = init;
  switch (init.code) {
    case 'INVALID_INPUT':
      return `Invalid arguments for ${tool}: fix the fields listed in issues, then call again. The tool did not run.`;
    case 'INVALID_OUTPUT':
      return `${tool} returned a result that breaks its output contract; stop and report it.${
        init.partialEffect ? ' Its side effect may have been applied.' : ''
      }`;
    case 'RETRYABLE':
      if (init.partialEffect && !init.retryable) {
        return `${tool} did not confirm (${init.reason ?? 'transient failure'}) after it was dispatched; its effect may have been applied. Do not repeat it without an idempotency key; check its state first.`;
      }
      return `${tool} failed transiently (${init.reason ?? 'temporary failure'}); it can be retried later.`;
    case 'REJECTED':
      return `${tool} refused the request (${init.reason ?? 'rejected'}); repeating the same call will not help.`;
    case 'FAILED':
      return `${tool} did not complete the operation.${
        init.partialEffect
          ? ' Its side effect may have been applied; check its state before acting again.'
          : ''
      }`;
  }
}
