// polling_no_progress as a specification: one tool re-read with one input, succeeding with one unchanged result
// every time, flags; a result that changes, a failure, or a result that is not known stays quiet.
import { describe, expect, it } from 'vitest';
import { polling } from './polling.js';
import { DEFAULT_LOOP_THRESHOLDS } from './scope.js';
import { type CallSpec, c, call, rounds, scopeOf, spanRange, spans } from './test-scope.js';

const detect = (specs: CallSpec[]) => polling.detect(scopeOf(specs), DEFAULT_LOOP_THRESHOLDS);

/** A status poll of job j returning `out` ('running' unless told otherwise). */
const poll = (out: string | null = 'running', rest: Partial<CallSpec> = {}) =>
  c('status', 'job', { output: out, ...rest });

describe('polling_no_progress flags', () => {
  it.each([
    { name: 'five polls, one result', calls: rounds(5, [poll()]), spans: spanRange(0, 4) },
    {
      name: 'other tools interleaved',
      calls: [
        poll(),
        c('sleep', 's1'),
        poll(),
        c('sleep', 's2'),
        poll(),
        poll(),
        c('x', 'y'),
        poll(),
      ],
      spans: spans(0, 2, 4, 5, 7),
    },
    {
      name: 'the same tool with other inputs interleaved',
      calls: [poll(), c('status', 'other', { output: 'done' }), poll(), poll(), poll(), poll()],
      spans: spans(0, 2, 3, 4, 5),
    },
    {
      name: 'the unchanged run after a change',
      calls: [poll('queued'), ...rounds(5, [poll()])],
      spans: spanRange(1, 5),
    },
    {
      name: 'the unchanged run before a failure',
      calls: [...rounds(6, [poll()]), poll(null, { code: 'UPSTREAM' })],
      spans: spanRange(0, 5),
    },
  ])('$name', ({ calls, spans: ids }) => {
    const flags = detect(calls);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({
      kind: 'polling_no_progress',
      severity: 'warning',
      tool: 'status',
      inputHash: 'job',
      count: ids.length,
      spanIds: ids,
      evidence: { wasted: { calls: ids.length - 1 } },
    });
  });

  it('says the tool and what the polls wasted', () => {
    const [flag] = detect(rounds(5, [poll()]));
    expect(flag?.summary).toBe(
      'status was called 5 times in a row with the same input and returned the same result every time: the agent re-read an unchanged answer. Wasted: 4 more calls, 400 ms.',
    );
  });
});

describe('polling_no_progress stays quiet', () => {
  it.each([
    {
      name: 'a poll whose result changes',
      calls: ['queued', 'running', 'running', '50%', '90%', 'done'].map((o) => poll(o)),
    },
    {
      name: 'a poll whose result changes back and forth',
      calls: ['a', 'b', 'a', 'b', 'a', 'b'].map((o) => poll(o)),
    },
    { name: 'polls without result hashes', calls: rounds(8, [poll(null)]) },
    {
      name: 'one poll without a result hash among them',
      calls: [poll(), poll(), poll(null), poll(), poll()],
    },
    {
      name: 'a failure among them',
      calls: [poll(), poll(), poll('running', { code: 'UPSTREAM' }), poll(), poll()],
    },
    { name: 'four polls only', calls: rounds(4, [poll()]) },
    {
      name: 'one tool over many distinct inputs that succeed (batch edits)',
      calls: Array.from({ length: 8 }, (_, i) => c('edit', `file${i}`, { output: 'ok' })),
    },
    {
      name: 'calls without input hashes returning the same result',
      calls: rounds(6, [c('now', null, { output: 'same' })]),
    },
  ])('$name', ({ calls }) => {
    expect(detect(calls)).toEqual([]);
  });

  it('follows pollMinCalls', () => {
    const scope = scopeOf(rounds(5, [poll()]));
    expect(polling.detect(scope, { ...DEFAULT_LOOP_THRESHOLDS, pollMinCalls: 6 })).toEqual([]);
  });
});

describe('polling_no_progress trigger keys', () => {
  it('keys a successful call with an input and a result hash; others have none', () => {
    expect(polling.triggerKeys(call(poll(), 0))).toEqual(['input\u0000status\u0000job']);
    expect(polling.triggerKeys(call(poll(null), 0))).toEqual([]);
    expect(polling.triggerKeys(call(poll('x', { code: 'UPSTREAM' }), 0))).toEqual([]);
    expect(polling.triggerKeys(call(c('status', null, { output: 'x' }), 0))).toEqual([]);
  });
});
