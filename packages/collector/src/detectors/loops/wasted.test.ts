// What a loop wasted: evidence.wasted computed from its definition on constructed scopes, and its words.
import { describe, expect, it } from 'vitest';
import { detectLoops } from './index.js';
import { repeats } from './repeats.js';
import { DEFAULT_LOOP_THRESHOLDS, type Wasted } from './scope.js';
import { c, modelCall as model, scopeOf } from './test-scope.js';
import { compactCount, compactDuration, computeWasted, wastedSummary } from './wasted.js';

describe('evidence.wasted', () => {
  // A cycle search → fetch, three rounds; its first round ends when fetch ends at 300 ms. The third round's
  // search runs long (800–1200 ms), so the loop ends at 1200 ms, after its last-started call (1000–1100 ms).
  // A reply after the loop ends later still (2000 ms): the scope's end is not the loop's.
  const calls = [
    c('search', 'q', { output: 'hits', resultTokens: 10, startMs: 0, endMs: 100 }),
    c('fetch', 'u', { output: 'page', resultTokens: 20, startMs: 200, endMs: 300 }),
    c('search', 'q', { output: 'hits', resultTokens: 10, startMs: 400, endMs: 500 }),
    c('fetch', 'u', { output: 'page', resultTokens: 20, startMs: 600, endMs: 700 }),
    c('search', 'q', { output: 'hits', resultTokens: null, startMs: 800, endMs: 1200 }),
    c('fetch', 'u', { output: 'page', resultTokens: 20, startMs: 1000, endMs: 1100 }),
    c('reply', 'z', { output: 'done', resultTokens: 5, startMs: 1300, endMs: 2000 }),
  ];
  const modelCalls = [
    model(150, 1), // inside the first round: not wasted
    model(299, 10), // starts just before the first round ends: not wasted
    model(300, 100), // starts as the first round ends: not strictly after, not wasted
    model(310, 2000),
    model(510, 3000),
    model(710, 4000),
    model(910, 500),
    model(1199, 7), // starts just before the last call ends: wasted
    model(1200, 20_000), // starts as the last call ends: not strictly before, not wasted
    model(1201, 30_000), // starts just after the last call ends: not wasted
    model(1500, 40_000), // after the loop, during the reply: not wasted
  ];
  const expected: Wasted = {
    calls: 4, // the rounds after the first: 2 × 2 calls
    ms: 900, // 300 ms (first round's end) to 1200 ms (the loop's last end)
    resultTokens: 50, // 10 + 20 + 0 (unknown) + 20
    modelTokens: 9507, // 2000 + 3000 + 4000 + 500 + 7
    // Each later call's share: from the latest end before it to its own end, and the model calls started then.
    // The last fetch ends inside the long search, so its share is empty.
    spans: [
      { spanId: 's2', ms: 200, resultTokens: 10, modelTokens: 2000 },
      { spanId: 's3', ms: 200, resultTokens: 20, modelTokens: 3000 },
      { spanId: 's4', ms: 500, resultTokens: 0, modelTokens: 4000 + 500 + 7 },
      { spanId: 's5', ms: 0, resultTokens: 20, modelTokens: 0 },
    ],
  };

  it('is exact on a cycle with model calls between its rounds', () => {
    const flags = detectLoops(scopeOf(calls, modelCalls));
    expect(flags).toHaveLength(1);
    expect(flags[0]?.kind).toBe('tool_cycle');
    expect(flags[0]?.evidence?.wasted).toEqual(expected);
    expect(flags[0]?.summary).toContain('Wasted: 2 more rounds, 900 ms, about 9.5k model tokens.');
  });

  it('for a repeat counts the calls after the first, from the first call’s end', () => {
    const scope = scopeOf(
      [
        c('get', 'a', { code: 'UPSTREAM', resultTokens: 3, startMs: 0, endMs: 40 }),
        c('get', 'a', { code: 'UPSTREAM', resultTokens: 4, startMs: 100, endMs: 140 }),
        c('get', 'a', { code: 'UPSTREAM', resultTokens: 5, startMs: 200, endMs: 1440 }),
      ],
      [model(39, 1), model(41, 800), model(1439, 200), model(1440, 1000)],
    );
    const [flag] = detectLoops(scope);
    expect(flag?.kind).toBe('identical_retry');
    expect(flag?.evidence?.wasted).toEqual({
      calls: 2,
      ms: 1400,
      resultTokens: 9,
      modelTokens: 1000,
      spans: [
        { spanId: 's1', ms: 100, resultTokens: 4, modelTokens: 800 },
        { spanId: 's2', ms: 1300, resultTokens: 5, modelTokens: 200 },
      ],
    });
    expect(flag?.summary).toBe(
      'get was called 3 times with the same input; 3 of those calls failed. Wasted: 2 more calls, 1.4 s, about 1k model tokens.',
    );
  });

  it('is on every repeat kind, said after the kind’s unchanged sentence', () => {
    const scope = scopeOf([
      ...[0, 1, 2].map(() => c('get', 'a', { code: 'INVALID_INPUT' })),
      ...[0, 1].map(() => c('charge', 'b', { code: 'REJECTED', retryable: false })),
      ...[0, 1].map(() =>
        c('pay', 'p', { code: 'UPSTREAM', effect: 'write', partialEffect: true }),
      ),
    ]);
    const said = Object.fromEntries(
      repeats.detect(scope, DEFAULT_LOOP_THRESHOLDS).map((f) => [f.kind, f]),
    );
    expect(Object.keys(said).sort()).toEqual([
      'identical_retry',
      'retry_after_non_retryable',
      'unrepaired_invalid_input',
      'unsafe_write_retry',
    ]);
    expect(said.identical_retry?.summary).toBe(
      'get was called 3 times with the same input; 3 of those calls failed. Wasted: 2 more calls, 200 ms.',
    );
    expect(said.unrepaired_invalid_input?.summary).toBe(
      'get got INVALID_INPUT and was called again with the same input 2 times: the agent did not fix the fields it was told about. Wasted: 2 more calls, 200 ms.',
    );
    expect(said.retry_after_non_retryable?.summary).toBe(
      "charge was repeated with the same input after a failure its executor said not to retry (retryable = false; the failure's code was REJECTED). Wasted: 1 more call, 100 ms.",
    );
    expect(said.unsafe_write_retry?.summary).toBe(
      'pay (a write) was retried without an idempotency key after a failure that may have applied its effect: a duplicate effect is possible. Wasted: 1 more call, 100 ms.',
    );
    for (const f of Object.values(said)) {
      expect(f.evidence?.wasted).toEqual({
        calls: f.count - 1,
        ms: 100 * (f.count - 1),
        resultTokens: 0,
        modelTokens: 0,
        // The calls after the first, each 100 ms after the one before.
        spans: f.spanIds.slice(1).map((spanId) => ({
          spanId,
          ms: 100,
          resultTokens: 0,
          modelTokens: 0,
        })),
      });
    }
  });

  it('is nothing for a loop of one round, and 0 model tokens when none are traced', () => {
    const one = scopeOf([c('a', 'x'), c('b', 'y')]).calls;
    expect(computeWasted(one, 2, [])).toEqual({
      calls: 0,
      ms: 0,
      resultTokens: 0,
      modelTokens: 0,
      spans: [],
    });
    expect(computeWasted(one, 1, [])).toEqual({
      calls: 1,
      ms: 100,
      resultTokens: 0,
      modelTokens: 0,
      spans: [{ spanId: 's1', ms: 100, resultTokens: 0, modelTokens: 0 }],
    });
  });
});

describe('wasted in words', () => {
  const w = (ms: number, modelTokens: number, calls = 2): Wasted => ({
    calls,
    ms,
    resultTokens: 0,
    modelTokens,
    spans: [],
  });
  it.each([
    { w: w(4200, 9000), rounds: 3, words: '3 more rounds, 4.2 s, about 9k model tokens' },
    { w: w(4200, 9000), rounds: 1, words: '1 more round, 4.2 s, about 9k model tokens' },
    { w: w(340, 950), rounds: undefined, words: '2 more calls, 340 ms, 950 model tokens' },
    { w: w(340, 1, 1), rounds: undefined, words: '1 more call, 340 ms, 1 model token' },
    { w: w(0, 0), rounds: undefined, words: '2 more calls, 0 ms' },
    { w: w(12_400, 0), rounds: 2, words: '2 more rounds, 12 s' },
  ])('$words', ({ w, rounds, words }) => {
    expect(wastedSummary(w, rounds)).toBe(words);
  });

  it.each([
    [0, '0'],
    [950, '950'],
    [999, '999'],
    [1000, '1k'],
    [4249, '4.2k'],
    [9000, '9k'],
    [9507, '9.5k'],
    [10_000, '10k'],
    [12_600, '13k'],
    [999_000, '999k'],
    [4_200_000, '4.2M'],
    [98_800_000, '99M'],
  ])('count %d reads %s', (n, s) => {
    expect(compactCount(n)).toBe(s);
  });

  it.each([
    [0, '0 ms'],
    [340.4, '340 ms'],
    [1000, '1 s'],
    [4200, '4.2 s'],
    [42_400, '42 s'],
    [210_000, '3.5 min'],
    [1_800_000, '30 min'],
    [14_400_000, '4 h'],
  ])('%d ms reads %s', (n, s) => {
    expect(compactDuration(n)).toBe(s);
  });
});
