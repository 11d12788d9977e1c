import { describe, expect, it } from 'vitest';
import { classifyWith, defaultClassify } from './classify.js';
import { backoffDelay, retryPolicySchema } from './retry.js';

describe('defaultClassify', () => {
  it.each([
    [new DOMException('t', 'TimeoutError'), 'RETRYABLE', 'timeout'],
    [new DOMException('a', 'AbortError'), 'RETRYABLE', 'aborted'],
    [Object.assign(new Error('x'), { status: 429 }), 'RETRYABLE', 'rate_limited'],
    [Object.assign(new Error('x'), { statusCode: 503 }), 'RETRYABLE', 'unavailable'],
    [Object.assign(new Error('x'), { response: { status: 502 } }), 'RETRYABLE', 'unavailable'],
    [Object.assign(new Error('x'), { code: 'ETIMEDOUT' }), 'RETRYABLE', 'timeout'],
    [Object.assign(new Error('x'), { code: 'ECONNRESET' }), 'RETRYABLE', 'unavailable'],
    [new Error('Rate limit exceeded'), 'RETRYABLE', 'rate_limited'],
    [new Error('bad request'), 'FAILED', undefined],
    [Object.assign(new Error('x'), { status: 400 }), 'FAILED', undefined],
    ['a string', 'FAILED', undefined],
    [null, 'FAILED', undefined],
  ])('%s → %s', (error, code, reason) => {
    const c = defaultClassify(error);
    expect(c.code).toBe(code);
    expect(c.reason).toBe(reason);
  });

  it('reads Retry-After from headers', () => {
    const error = Object.assign(new Error('x'), {
      status: 429,
      headers: new Headers({ 'retry-after': '2' }),
    });
    expect(defaultClassify(error).retryAfterMs).toBe(2000);
  });

  it('falls back to the default when a custom classifier returns junk or throws', () => {
    expect(classifyWith(() => 'NOPE', new Error('x')).code).toBe('FAILED');
    expect(
      classifyWith(
        () => {
          throw new Error('bug');
        },
        Object.assign(new Error('x'), { status: 503 }),
      ).code,
    ).toBe('RETRYABLE');
    expect(classifyWith(() => 'REJECTED', new Error('x'))).toEqual({ code: 'REJECTED' });
  });
});

describe('backoffDelay', () => {
  const policy = retryPolicySchema.parse({
    maxAttempts: 5,
    backoffMs: 100,
    maxBackoffMs: 1000,
    jitter: false,
  });
  it('doubles up to the cap and honours Retry-After within it', () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(policy, a, undefined))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(backoffDelay(policy, 1, 700)).toBe(700);
    expect(backoffDelay(policy, 1, 60_000)).toBe(1000);
    expect(backoffDelay({ ...policy, jitter: true }, 3, undefined, () => 0.5)).toBe(200);
  });
});
