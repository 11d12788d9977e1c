// The executor's retry policy: how many attempts, how long to wait between them.
import { z } from 'zod';

// Strict: a misspelt key (`baseDelayMs`, `retries`) would otherwise be dropped silently and the tool would run
// with the defaults; defineTool refuses it at startup instead, naming the key.
export const retryPolicySchema = z.strictObject({
  /** Attempts within one call, the first included; 1 means no retry. */
  maxAttempts: z.number().int().min(1).max(20).default(1),
  /** Base delay of the exponential backoff. */
  backoffMs: z.number().int().min(0).max(60_000).default(100),
  /** Upper bound of one delay, also applied to a server's Retry-After. */
  maxBackoffMs: z.number().int().min(0).max(600_000).default(5_000),
  /** Full jitter spreads retries of many clients; off gives exact delays. */
  jitter: z.boolean().default(true),
});
export type RetryPolicy = z.input<typeof retryPolicySchema>;
export type ResolvedRetryPolicy = z.output<typeof retryPolicySchema>;

/** Delay before the attempt after `failedAttempt` (1-based within the call). */
export function backoffDelay(
  policy: ResolvedRetryPolicy,
  failedAttempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (failedAttempt - 1));
  const delay = policy.jitter ? Math.round(random() * exponential) : exponential;
  // A server that says when to come back knows better than our backoff, within our cap.
  return retryAfterMs === undefined
    ? delay
    : Math.min(policy.maxBackoffMs, Math.max(delay, retryAfterMs));
}

/** Waits `ms`; resolves `false` early if `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
