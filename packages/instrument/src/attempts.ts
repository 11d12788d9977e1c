// The attempts of one call: run, classify, and retry only what the policy allows
// (each failure code's retry rule, as the envelope's codes define it).
import { type AttemptState, runAttempt } from './attempt.js';
import { classifyWith } from './classify.js';
import { failure } from './envelope.js';
import { errorName } from './exception.js';
import type { Executed, Opts, ToolInternals } from './internal-types.js';
import { toValidationIssues } from './issues.js';
import { parseValue } from './parse.js';
import { backoffDelay, sleep } from './retry.js';
import * as sc from './semconv.js';
import type { SafeSpan } from './telemetry.js';

/** Runs attempts until success, a final failure, the cap or the caller's abort. */
export async function attempts(
  t: ToolInternals,
  input: unknown,
  opts: Opts,
  firstAttempt: number,
  span: SafeSpan,
): Promise<Executed> {
  const canRetry = t.effect === 'read' || opts.idempotencyKey !== undefined;
  for (let i = 0; ; i++) {
    const attempt = firstAttempt + i;
    if (opts.signal?.aborted) {
      const result = failure({
        code: 'RETRYABLE',
        tool: t.name,
        attempt,
        retryable: true,
        partialEffect: false,
        reason: 'aborted',
      });
      return { result, replay: false, failedAttempts: i };
    }
    const state: AttemptState = { partialEffect: false, rejection: undefined };
    const ctx = {
      attempt,
      idempotencyKey: opts.idempotencyKey,
      callId: opts.callId,
      conversationId: opts.conversationId,
    };
    // Await only real promises: a sync executor or schema costs no extra microtask turn.
    let outcome = runAttempt(
      t.execute,
      input,
      ctx,
      state,
      t.timeoutMs,
      opts.signal,
      opts.executorSignal,
    );
    if (outcome instanceof Promise) outcome = await outcome;
    const isWrite = t.effect === 'write';
    if (outcome.kind === 'ok') {
      let out = parseValue(t.output, outcome.value);
      if (out instanceof Promise) out = await out;
      if (out.kind === 'ok') {
        return {
          result: { ok: true, data: out.data, attempt },
          replay: false,
          failedAttempts: i,
          rawOutput: outcome.value,
        };
      }
      const result = failure({
        code: out.kind === 'invalid' ? 'INVALID_OUTPUT' : 'FAILED',
        tool: t.name,
        attempt,
        retryable: false,
        partialEffect: state.partialEffect || isWrite,
        ...(out.kind === 'invalid'
          ? { issues: toValidationIssues(out.issues) }
          : { reason: 'output_validation_crashed' }),
      });
      // The output that broke the contract: recorded (redacted) on the span when capture is on.
      return { result, replay: false, failedAttempts: i, rawOutput: outcome.value };
    }
    if (outcome.kind === 'rejected') {
      const result = failure({
        code: 'REJECTED',
        tool: t.name,
        attempt,
        retryable: false,
        partialEffect: state.partialEffect,
        reason: outcome.reason,
        message: outcome.message,
      });
      return { result, replay: false, failedAttempts: i };
    }
    const c = classifyWith(t.classify, outcome.error);
    // A write that failed after dispatch may have taken effect, unless the classifier knows it did not.
    const partialEffect =
      state.partialEffect || (isWrite && c.code !== 'REJECTED' && c.partialEffect !== false);
    const retryable = c.code === 'RETRYABLE' && canRetry;
    const result = failure({
      code: c.code,
      tool: t.name,
      attempt,
      retryable,
      partialEffect,
      reason: c.reason,
    });
    const callerGaveUp = opts.signal?.aborted === true;
    if (!retryable || callerGaveUp || i + 1 >= t.policy.maxAttempts) {
      return { result, replay: false, failedAttempts: i, error: outcome.error };
    }
    span.addEvent(sc.EVENT_TOOLSCOPE_ATTEMPT_FAILED, {
      [sc.ATTR_TOOLSCOPE_ATTEMPT]: attempt,
      [sc.ATTR_TOOLSCOPE_ERROR_CODE]: c.code,
      ...(c.reason ? { [sc.ATTR_TOOLSCOPE_ERROR_REASON]: c.reason } : {}),
      [sc.ATTR_EXCEPTION_TYPE]: errorName(outcome.error),
    });
    const waited = await sleep(backoffDelay(t.policy, i + 1, c.retryAfterMs), opts.signal);
    if (!waited) return { result, replay: false, failedAttempts: i, error: outcome.error };
  }
}
