import { describe, expect, it } from 'vitest';
import { parseCallOptions } from './call-options.js';

describe('parseCallOptions', () => {
  it('keeps valid options and ignores unknown keys', () => {
    const signal = new AbortController().signal;
    expect(
      parseCallOptions({
        callId: 'c',
        conversationId: 'v',
        idempotencyKey: 'k',
        signal,
        attempt: 2,
        capture: true,
        other: 1,
      }),
    ).toEqual({
      ok: true,
      options: {
        callId: 'c',
        conversationId: 'v',
        idempotencyKey: 'k',
        signal,
        attempt: 2,
        capture: true,
      },
    });
    expect(parseCallOptions(undefined)).toEqual({ ok: true, options: {} });
  });

  it('names every wrong option', () => {
    expect(
      parseCallOptions({ callId: 5, attempt: 0, signal: {}, capture: 'yes', idempotencyKey: '' }),
    ).toEqual({
      ok: false,
      problems:
        'callId: expected a string; idempotencyKey: expected 1–512 characters; signal: expected an AbortSignal; attempt: expected an integer from 1 to 1000000; capture: expected a boolean',
    });
    expect(parseCallOptions('x')).toEqual({ ok: false, problems: 'options: expected an object' });
  });
});
