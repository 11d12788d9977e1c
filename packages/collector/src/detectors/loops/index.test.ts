// All loop detectors together: one loop gives one kind (SUPERSEDES), the kinds that say something of their own
// stay, and the look-alikes of progress give no flag of any kind.
import { describe, expect, it } from 'vitest';
import { detectLoops, runsEnded, triggerKeys } from './index.js';
import { repeats } from './repeats.js';
import { DEFAULT_LOOP_THRESHOLDS, type LoopScope } from './scope.js';
import { type CallSpec, c, call, rounds, scopeOf } from './test-scope.js';

const kinds = (scope: LoopScope) => detectLoops(scope).map((f) => f.kind);

/** A failure its executor says not to retry. */
const rejected = (tool: string, input: string) =>
  c(tool, input, { code: 'REJECTED', retryable: false });

describe('one loop, one kind', () => {
  it.each([
    {
      name: 'a cycle explains the identical retries of a step failing each round',
      calls: rounds(3, [
        c('search', 'q', { output: 'hits' }),
        c('fetch', 'u', { code: 'UPSTREAM' }),
      ]),
      alone: ['identical_retry'],
      together: ['tool_cycle'],
    },
    {
      name: 'a cycle explains retries after non-retryable failures',
      calls: rounds(3, [c('plan', 'p', { output: 'x' }), rejected('charge', 'c1')]),
      alone: ['identical_retry', 'retry_after_non_retryable'],
      together: ['tool_cycle'],
    },
    {
      name: 'a cycle explains the polls of its steps',
      calls: rounds(5, [c('status', 'job', { output: 'running' }), c('sleep', 's')]),
      alone: [],
      together: ['tool_cycle'],
    },
    {
      name: 'a cycle explains the churn of a tool going round the same variants',
      calls: rounds(3, [rejected('write', 'a'), rejected('write', 'b'), rejected('write', 'c')]),
      alone: ['identical_retry', 'retry_after_non_retryable'].flatMap((k) => [k, k, k]).sort(),
      together: ['tool_cycle'],
    },
    {
      name: 'a churn explains an input tried twice or more among its variants',
      calls: ['a', 'a', 'a', 'b', 'c'].map((h) => rejected('write', h)),
      alone: ['identical_retry', 'retry_after_non_retryable'],
      together: ['argument_churn'],
    },
  ])('$name', ({ calls, alone, together }) => {
    const scope = scopeOf(calls);
    // The repeat kinds do fire on their own: the arbitration, not their rule, makes them go.
    expect(
      repeats
        .detect(scope, DEFAULT_LOOP_THRESHOLDS)
        .map((f) => f.kind)
        .sort(),
    ).toEqual(alone);
    expect(kinds(scope)).toEqual(together);
  });

  it('keeps a repeat whose calls the loop does not all cover', () => {
    // The first fetch comes before the cycle starts, so the retries of fetch are more than the cycle's.
    const scope = scopeOf([
      c('fetch', 'u', { code: 'UPSTREAM' }),
      c('think', 't'),
      ...rounds(3, [c('search', 'q', { output: 'hits' }), c('fetch', 'u', { code: 'UPSTREAM' })]),
    ]);
    expect(kinds(scope).sort()).toEqual(['identical_retry', 'tool_cycle']);
  });

  it('keeps unrepaired_invalid_input inside a churn: the ignored issues are news of their own', () => {
    const scope = scopeOf(
      ['a', 'a', 'b', 'c'].map((h) => c('write', h, { code: 'INVALID_INPUT' })),
    );
    expect(kinds(scope).sort()).toEqual(['argument_churn', 'unrepaired_invalid_input']);
  });

  it('keeps unsafe_write_retry inside a cycle: a duplicate effect is news of its own', () => {
    const pay = c('pay', 'p1', { code: 'REJECTED', effect: 'write', partialEffect: true });
    const scope = scopeOf(rounds(3, [c('plan', 'p', { output: 'x' }), pay]));
    expect(kinds(scope).sort()).toEqual(['tool_cycle', 'unsafe_write_retry']);
  });
});

describe('look-alikes of progress give no flag of any kind', () => {
  const quiet: { name: string; calls: CallSpec[] }[] = [
    {
      name: 'one tool over many distinct inputs that succeed (batch edits)',
      calls: Array.from({ length: 12 }, (_, i) => c('apply_patch', `patch${i}`, { output: 'ok' })),
    },
    {
      name: 'a poll whose result changes',
      calls: ['queued', 'running', '20%', '60%', '90%', 'done'].map((o) =>
        c('status', 'job', { output: o }),
      ),
    },
    {
      name: 'a repaired input that then succeeds',
      calls: [
        c('write', 'bad', { code: 'INVALID_INPUT', path: '/date' }),
        c('write', 'fixed', { output: 'written' }),
        c('read', 'back', { output: 'row' }),
      ],
    },
    {
      name: 'a walk through pages: read and summarise with new inputs each round',
      calls: [1, 2, 3, 4, 5].flatMap((p) => [
        c('read', `page${p}`, { output: `text${p}` }),
        c('summarise', `text${p}`, { output: `sum${p}` }),
      ]),
    },
    {
      name: 'a cycle of only two rounds',
      calls: rounds(2, [c('search', 'q', { output: 'h' }), c('fetch', 'u', { code: 'UPSTREAM' })]),
    },
    {
      name: 'churn that ends in a success',
      calls: [
        ...['a', 'b', 'c'].map((h) => c('write', h, { code: 'INVALID_INPUT', path: '/date' })),
        c('write', 'd', { output: 'written' }),
      ],
    },
  ];
  it.each(quiet)('$name', ({ calls }) => {
    expect(detectLoops(scopeOf(calls))).toEqual([]);
  });
});

describe('trigger keys', () => {
  it('gathers every detector’s keys of a call, each under its own prefix', () => {
    const failing = call(c('write', 'a', { code: 'INVALID_INPUT' }), 0);
    // Only a cycle needs the whole scope; the others are decided by the tool's own calls. A churn needs three
    // failing calls before this one (the default of four in a row).
    expect(triggerKeys(failing)).toEqual([
      // A repeat's and a cycle's key are one: read as widely as the cycle needs.
      { key: 'input\u0000write\u0000a', wholeScope: true, prior: 1 },
      {
        key: 'churn\u0000write\u0000shape\u0000INVALID_INPUT',
        wholeScope: false,
        prior: 3,
        run: 'argument_churn\u0000write',
      },
    ]);
    expect(runsEnded(failing)).toEqual([]);
    const read = call(c('status', 'job', { output: 'running' }), 0);
    expect(triggerKeys(read).map((k) => k.key)).toEqual(['input\u0000status\u0000job']);
    // A success ends the tool's churn runs.
    expect(runsEnded(read)).toEqual(['argument_churn\u0000status']);
  });
});

describe('a re-evaluation of some tools', () => {
  it('runs only the detectors one tool decides, and keeps a stored cycle superseding what it covers', () => {
    const rounds = [0, 1, 2].flatMap((r) => [
      c('search', 'q', { code: 'UPSTREAM', startMs: 100 * r }),
      c('open', 'd', { code: 'UPSTREAM', startMs: 100 * r + 50 }),
    ]);
    const scope = scopeOf(rounds);
    // The whole scope: one cycle, whose steps' identical retries it explains.
    expect(kinds(scope)).toEqual(['tool_cycle']);
    // Only search's calls re-read: no cycle can be seen, and the stored one still explains search's retries.
    const search = { calls: scope.calls.filter((x) => x.tool === 'search'), modelCalls: [] };
    const cycle = detectLoops(scope)[0];
    expect(detectLoops(search, undefined, { known: [] }).map((f) => f.kind)).toEqual([
      'identical_retry',
    ]);
    expect(
      detectLoops(search, undefined, {
        known: [{ kind: 'tool_cycle', spanIds: cycle?.spanIds ?? [] }],
      }),
    ).toEqual([]);
  });
});
