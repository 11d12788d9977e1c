// Why a failed call may or may not be sent again as it was, in words, from the call's own facts: the code is the
// cause's class and `retryable` the executor's policy for this call, so "RETRYABLE, not retryable" needs its
// reason said (the rule is the executor's: reads may retry, writes only with an idempotency key, see
// docs/defining-tools.md).
import type { Call } from '@toolscope/collector/schemas';

type Facts = Pick<Call, 'code' | 'retryable' | 'effect'>;

/** The reason a failed call must not be repeated as it was, or null when it may be (or nothing says). */
export function whyNotRetry(call: Facts): string | null {
  if (!call.code || call.retryable !== false) return null;
  switch (call.code) {
    case 'RETRYABLE':
      return call.effect === 'write'
        ? 'a write without an idempotency key: its effect may already have happened, and repeating it could apply it twice; check its state, or retry with a key'
        : 'the executor allows no retry of this call';
    case 'INVALID_INPUT':
      return 'the same arguments fail the same way: fix the fields named in the issues first';
    case 'INVALID_OUTPUT':
      return 'the tool answered outside its contract: stop and report it';
    case 'REJECTED':
      return 'a business rule said no: the same call gets the same answer';
    default:
      return 'not a transient failure';
  }
}
