// tool_cycle as a specification: which sequences of calls are a cycle with no progress, and which look like one
// but are progress (or too short, or unreadable) and stay quiet.
import { describe, expect, it } from 'vitest';
import { cycles } from './cycles.js';
import { DEFAULT_LOOP_THRESHOLDS } from './scope.js';
import { type CallSpec, c, call, rounds, scopeOf, spanRange } from './test-scope.js';

const detect = (specs: CallSpec[]) => cycles.detect(scopeOf(specs), DEFAULT_LOOP_THRESHOLDS);

const search = (out: string | null = 'hits', rest: Partial<CallSpec> = {}) =>
  c('search', 'q', { output: out, ...rest });
const fetch = (out: string | null = 'page', rest: Partial<CallSpec> = {}) =>
  c('fetch', 'u', { output: out, ...rest });
const step = (tool: string, inputHash: string) => ({ tool, inputHash });

describe('tool_cycle flags', () => {
  it.each([
    {
      name: 'two steps, three rounds, the same results',
      calls: rounds(3, [search(), fetch()]),
      spans: spanRange(0, 5),
      cycle: [step('search', 'q'), step('fetch', 'u')],
      rounds: 3,
    },
    {
      name: 'three steps, four rounds',
      calls: rounds(4, [c('plan', 'p', { output: 'x' }), search(), fetch()]),
      spans: spanRange(0, 11),
      cycle: [step('plan', 'p'), step('search', 'q'), step('fetch', 'u')],
      rounds: 4,
    },
    {
      name: 'five steps, three rounds',
      calls: rounds(
        3,
        ['a', 'b', 'c', 'd', 'e'].map((t) => c(t, t, { output: t })),
      ),
      spans: spanRange(0, 14),
      cycle: ['a', 'b', 'c', 'd', 'e'].map((t) => step(t, t)),
      rounds: 3,
    },
    {
      name: 'in the middle of a scope, from the run’s first call',
      calls: [c('start', 's'), ...rounds(3, [fetch(), search()]), c('reply', 'r')],
      spans: spanRange(1, 6),
      cycle: [step('fetch', 'u'), step('search', 'q')],
      rounds: 3,
    },
    {
      name: 'the maximal run, in full rounds only',
      calls: [...rounds(4, [search(), fetch()]), search()],
      spans: spanRange(0, 7),
      cycle: [step('search', 'q'), step('fetch', 'u')],
      rounds: 4,
    },
    {
      name: 'changing results but a failed call in every round',
      calls: [1, 2, 3].flatMap((r) => [
        search(`hits${r}`),
        fetch(`error${r}`, { code: 'UPSTREAM' }),
      ]),
      spans: spanRange(0, 5),
      cycle: [step('search', 'q'), step('fetch', 'u')],
      rounds: 3,
    },
    {
      name: 'results known in some rounds only, and the same where known',
      calls: [
        search(),
        fetch(),
        search(undefined, { output: null }),
        fetch(),
        search(),
        fetch(null),
      ],
      spans: spanRange(0, 5),
      cycle: [step('search', 'q'), step('fetch', 'u')],
      rounds: 3,
    },
    {
      name: 'the smallest period: ABAB… six times is AB, not ABAB',
      calls: rounds(6, [search(), fetch()]),
      spans: spanRange(0, 11),
      cycle: [step('search', 'q'), step('fetch', 'u')],
      rounds: 6,
    },
    {
      name: 'a step repeated within the cycle: AAB is a cycle of three',
      calls: rounds(3, [search(), search(), fetch()]),
      spans: spanRange(0, 8),
      cycle: [step('search', 'q'), step('search', 'q'), step('fetch', 'u')],
      rounds: 3,
    },
    {
      name: 'the stuck rounds of a cycle that then makes progress',
      calls: [...rounds(3, [search(), fetch()]), search('new hits'), fetch()],
      spans: spanRange(0, 5),
      cycle: [step('search', 'q'), step('fetch', 'u')],
      rounds: 3,
    },
  ])('$name', ({ calls, spans, cycle, rounds: n }) => {
    const flags = detect(calls);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({
      kind: 'tool_cycle',
      severity: 'warning',
      tool: cycle[0]?.tool,
      inputHash: cycle[0]?.inputHash,
      count: spans.length,
      spanIds: spans,
      evidence: { cycle, rounds: n },
    });
    expect(flags[0]?.evidence?.wasted?.calls).toBe(spans.length - cycle.length);
  });

  it('gives one flag per distinct cycle run, each with its own traces', () => {
    const first = rounds(3, [
      search(undefined, { traceId: 'ta' }),
      fetch(undefined, { traceId: 'tb' }),
    ]);
    const second = rounds(3, [c('ls', 'd', { output: 'x' }), c('cat', 'f', { output: 'y' })]);
    const flags = detect([...first, c('think', 't'), ...second]);
    expect(flags.map((f) => [f.spanIds, f.traceIds])).toEqual([
      [spanRange(0, 5), ['ta', 'tb']],
      [spanRange(7, 12), ['t1']],
    ]);
  });

  it('says the cycle, the rounds and what they wasted', () => {
    const [flag] = detect(rounds(3, [search(), fetch()]));
    expect(flag?.summary).toBe(
      'A cycle of 2 calls (search → fetch) ran 3 times in a row with the same inputs and the same results every round. Wasted: 2 more rounds, 400 ms.',
    );
    const [failing] = detect(rounds(3, [search(), fetch('e', { code: 'UPSTREAM' })]));
    expect(failing?.summary).toContain('with the same inputs and a failed call in every round.');
  });
});

describe('tool_cycle stays quiet', () => {
  it.each([
    { name: 'a cycle of only two rounds', calls: rounds(2, [search(), fetch()]) },
    {
      name: 'a cycle broken by a call without an input hash',
      calls: [search(), fetch(), search(), c('fetch', null, { output: 'page' }), search(), fetch()],
    },
    {
      name: 'a cycle whose results change, with no failures',
      calls: [1, 2, 3].flatMap((r) => [search(`hits${r}`), fetch(`page${r}`)]),
    },
    {
      name: 'a cycle without any result hash and no failures (no "same result" to claim)',
      calls: rounds(3, [search(null), fetch(null)]),
    },
    {
      name: 'a failure in some rounds only, results changing',
      calls: [
        search('h1'),
        fetch('p1', { code: 'UPSTREAM' }),
        search('h2'),
        fetch('p2'),
        search('h3'),
        fetch('p3'),
      ],
    },
    { name: 'one call repeated (period 1 is a repeat)', calls: rounds(6, [search()]) },
    {
      name: 'a walk through pages: read and summarise with new inputs each round',
      calls: [1, 2, 3, 4].flatMap((p) => [
        c('read', `page${p}`, { output: `text${p}` }),
        c('summarise', `text${p}`, { output: `sum${p}` }),
      ]),
    },
    {
      name: 'one tool over many distinct inputs that succeed (batch edits)',
      calls: Array.from({ length: 8 }, (_, i) => c('edit', `file${i}`, { output: 'ok' })),
    },
  ])('$name', ({ calls }) => {
    expect(detect(calls)).toEqual([]);
  });

  it('follows cycleMinRounds', () => {
    const calls = scopeOf(rounds(3, [search(), fetch()]));
    expect(cycles.detect(calls, { ...DEFAULT_LOOP_THRESHOLDS, cycleMinRounds: 4 })).toEqual([]);
    expect(cycles.detect(calls, { ...DEFAULT_LOOP_THRESHOLDS, cycleMinRounds: 2 })).toHaveLength(1);
  });
});

describe('tool_cycle trigger keys', () => {
  it('keys a call by its tool and input under its own prefix, and a call without input not at all', () => {
    expect(cycles.triggerKeys(call(search(), 0))).toEqual(['input\u0000search\u0000q']);
    expect(cycles.triggerKeys(call(c('search', null), 0))).toEqual([]);
  });
});
