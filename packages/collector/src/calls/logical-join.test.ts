// The join of a logical call's parts as a specification (docs/intake.md, "One logical call"): which parts are one
// call, which part holds it, and what the joined call says; and the facts read from a span's attributes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isComplete,
  type LogicalCall,
  logicalFromJson,
  logicalJson,
  logicalOf,
} from './logical-call.js';
import {
  type CallOutcome,
  groupParts,
  type LinkView,
  type MergePart,
  mergeParts,
} from './logical-join.js';

const OK: CallOutcome = {
  code: null,
  errorType: null,
  reason: null,
  retryable: null,
  isError: false,
  partialEffect: 0,
  outputHash: null,
  resultBytes: null,
  resultTokens: null,
  exceptionType: null,
  exceptionMessage: null,
  issues: null,
};

const facts = (l: Partial<LogicalCall>, startNs = 0n): LogicalCall => ({
  legs: 1,
  inputWaitMs: 0,
  task: null,
  awaits: null,
  resumes: null,
  parts: 1,
  lastStartNs: startNs,
  joinedTo: null,
  ...l,
});

/** A server part of `book` starting at `ms`, with its links. */
const part = (
  spanId: string,
  ms: number,
  l: Partial<LogicalCall>,
  more: Partial<LinkView> = {},
) => {
  const startNs = BigInt(ms) * 1_000_000n;
  return {
    traceId: 't1',
    spanId,
    parentSpanId: null,
    tool: 'book',
    inputHash: 'h',
    kind: 2,
    proxy: false,
    startNs,
    logical: facts(l, startNs),
    ...more,
  } satisfies LinkView;
};

const groups = (views: LinkView[]) =>
  groupParts(views).map((g) => ({
    members: g.members.map((m) => views[m]?.spanId),
    holder: g.holder === null ? null : views[g.holder]?.spanId,
  }));

describe('which parts are one call', () => {
  it('joins a part awaiting X to the part resuming X, held by the earlier', () => {
    expect(groups([part('b', 20, { resumes: 'X' }), part('a', 0, { awaits: 'X' })])).toEqual([
      { members: ['a', 'b'], holder: 'a' },
    ]);
  });

  it('tells two identical calls waiting on one state apart by their client spans', () => {
    const views = [
      part('a1', 0, { awaits: 'X' }, { parentSpanId: 'c1' }),
      part('a2', 1, { awaits: 'X' }, { parentSpanId: 'c2' }),
      part('b2', 10, { resumes: 'X' }, { parentSpanId: 'c2' }),
      part('b1', 11, { resumes: 'X' }, { parentSpanId: 'c1' }),
    ];
    expect(groups(views)).toEqual([
      { members: ['a1', 'b1'], holder: 'a1' },
      { members: ['a2', 'b2'], holder: 'a2' },
    ]);
  });

  it('takes identical calls without client spans in the order they waited', () => {
    const views = [
      part('a1', 0, { awaits: 'X' }),
      part('a2', 1, { awaits: 'X' }),
      part('b1', 10, { resumes: 'X' }),
      part('b2', 11, { resumes: 'X' }),
    ];
    expect(groups(views).map((g) => g.members)).toEqual([
      ['a1', 'b1'],
      ['a2', 'b2'],
    ]);
  });

  it.each([
    { name: 'another tool', other: { tool: 'cancel' } },
    { name: 'another input', other: { inputHash: 'other' } },
    { name: 'another client span', other: { parentSpanId: 'c2' } },
    { name: "the proxy's part", other: { proxy: true } },
    { name: 'a client span', other: { kind: 3 } },
  ])('does not join a resuming part of $name', ({ other }) => {
    const views = [
      part('a', 0, { awaits: 'X' }, { parentSpanId: 'c1' }),
      part('b', 10, { resumes: 'X' }, { parentSpanId: 'c1', ...other }),
    ];
    expect(groups(views)).toEqual([]);
  });

  it('joins legs in separate traces, whatever their parents, and prefers a waiting leg of its own trace', () => {
    // A client without trace context: each leg the root of a trace, or under a span of its own process.
    expect(
      groups([
        part('a', 0, { awaits: 'X' }, { traceId: 't1', parentSpanId: 'h1' }),
        part('b', 10, { resumes: 'X' }, { traceId: 't2', parentSpanId: 'h2' }),
      ]).map((g) => g.members),
    ).toEqual([['a', 'b']]);
    // Two identical calls waiting, one in the resumer's trace: that one, though the other waited first.
    expect(
      groups([
        part('a1', 0, { awaits: 'X' }, { traceId: 't1' }),
        part('a2', 1, { awaits: 'X' }, { traceId: 't2' }),
        part('b2', 10, { resumes: 'X' }, { traceId: 't2' }),
      ]).map((g) => g.members),
    ).toEqual([['a2', 'b2']]);
  });

  it('joins every part with one task hash; polls alone have no holder', () => {
    const task = { polls: 1, pollIntervalMs: 25, status: 'working', idHash: 'T' };
    const poll = (id: string, ms: number) => part(id, ms, { legs: 0, task }, { tool: '' });
    expect(groups([poll('p1', 30), poll('p2', 60)])).toEqual([
      { members: ['p1', 'p2'], holder: null },
    ]);
    expect(
      groups([poll('p1', 30), part('h', 0, { task: { ...task, polls: 0 } }), poll('p2', 60)]),
    ).toEqual([{ members: ['h', 'p1', 'p2'], holder: 'h' }]);
    expect(groups([poll('p1', 30)])).toEqual([{ members: ['p1'], holder: null }]);
  });
});

const at = (ms: number, durationMs: number, l: Partial<LogicalCall>, outcome = OK): MergePart => {
  const startNs = BigInt(ms) * 1_000_000n;
  return { startNs, durationMs, logical: facts(l, startNs), outcome };
};

describe('what the joined call says', () => {
  it('runs from the first start to the end of the part that ended the call, whatever the clocks say', () => {
    // The waiting leg ended at its idle timeout (600 s), after the leg that ended the call; and that leg's process
    // runs 5 ms behind, so it seems to start first.
    const merged = mergeParts([
      at(0, 600_000, { awaits: 'X' }),
      at(-5, 40, { resumes: 'X' }, { ...OK, code: 'REJECTED', isError: true }),
    ]);
    expect(merged.startNs).toBe(-5_000_000n);
    expect(merged.durationMs).toBe(40);
    expect(merged.outcome.code).toBe('REJECTED');
    expect(merged.logical).toMatchObject({ legs: 2, parts: 2, awaits: null, resumes: null });
    expect(isComplete(merged.logical)).toBe(true);
  });

  it("sums legs, waits and polls, and keeps the last part's status and interval", () => {
    const task = (polls: number, status: string, pollIntervalMs: number) => ({
      task: { polls, status, pollIntervalMs, idHash: 'T' },
    });
    const merged = mergeParts([
      at(0, 2, { ...task(2, 'working', 25), inputWaitMs: 100, legs: 2 }),
      at(90, 1, { ...task(1, 'input_required', 50), legs: 0 }),
      at(300, 1, { ...task(1, 'completed', 50), legs: 1, inputWaitMs: 200 }),
    ]);
    expect(merged.logical).toMatchObject({
      legs: 3,
      inputWaitMs: 300,
      parts: 3,
      task: { polls: 4, status: 'completed', pollIntervalMs: 50, idHash: 'T' },
    });
    expect(merged.durationMs).toBe(301);
  });

  it('is the same call however its parts were joined before (a stored holder extended)', () => {
    const arbPart = fc.record({
      ms: fc.integer({ min: 0, max: 10_000 }),
      durationMs: fc.integer({ min: 0, max: 1000 }),
      legs: fc.integer({ min: 0, max: 3 }),
      wait: fc.integer({ min: 0, max: 500 }),
      polls: fc.integer({ min: 0, max: 5 }),
      done: fc.boolean(),
      code: fc.constantFrom(null, 'FAILED'),
    });
    fc.assert(
      fc.property(fc.array(arbPart, { minLength: 2, maxLength: 6 }), fc.nat(), (specs, cut) => {
        const parts = specs.map((s, i) =>
          at(
            s.ms,
            s.durationMs,
            {
              legs: s.legs,
              inputWaitMs: s.wait,
              task: {
                polls: s.polls,
                status: s.done ? 'completed' : 'working',
                pollIntervalMs: 25,
                idHash: 'T',
              },
              lastStartNs: BigInt(s.ms) * 1_000_000n + BigInt(i),
            },
            { ...OK, code: s.code },
          ),
        );
        const k = 1 + (cut % (parts.length - 1));
        const stored = mergeParts(parts.slice(0, k));
        const again = mergeParts([
          { ...stored, outcome: stored.outcome, logical: stored.logical },
          ...parts.slice(k),
        ]);
        expect(again).toEqual(mergeParts(parts));
      }),
    );
  });
});

describe("a span's logical facts", () => {
  it('reads nothing from a span that says nothing, and a part of a call with its links', () => {
    expect(logicalOf({ 'gen_ai.tool.name': 'book' }, 5n, false)).toBeNull();
    expect(
      logicalOf({ 'toolscope.call.legs': 1, 'toolscope.call.awaits': 'X' }, 5n, false),
    ).toEqual(facts({ awaits: 'X' }, 5n));
  });

  it('counts a poll part as no leg of its own, and reads values off the contract as absent', () => {
    const poll = logicalOf(
      {
        'toolscope.task.id.hash': 'T',
        'toolscope.task.polls': 1,
        'toolscope.task.poll_interval_ms': -3,
        'toolscope.task.status': 'working',
        'toolscope.call.legs': 'two',
      },
      7n,
      true,
    );
    expect(poll).toMatchObject({
      legs: 0,
      task: { polls: 1, pollIntervalMs: null, status: 'working', idHash: 'T' },
    });
  });

  it('keeps the facts through the stored column, and reads a damaged one as none', () => {
    const l = facts(
      { legs: 3, task: { polls: 2, pollIntervalMs: 25, status: 'failed', idHash: 'T' } },
      9n,
    );
    expect(logicalFromJson(logicalJson(l))).toEqual(l);
    expect(logicalFromJson('{"legs":-1}')).toBeNull();
    expect(logicalFromJson('not json')).toBeNull();
  });
});
