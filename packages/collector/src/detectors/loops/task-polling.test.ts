// polling_faster_than_interval as a specification: a task whose polls came at least twice as often as the
// server's poll interval, with at least the poll threshold of polls, flags with the interval and the observed
// rate in its evidence; a task polled at its interval, a few fast polls, or a call that is no task stays quiet.
import { describe, expect, it } from 'vitest';
import { detectLoops, triggerKeys } from './index.js';
import { DEFAULT_LOOP_THRESHOLDS } from './scope.js';
import { taskPolling } from './task-polling.js';
import { type CallSpec, scopeOf } from './test-scope.js';

/** A `report` task that ran `ms` milliseconds with `polls` polls against an interval of `interval` ms. */
const task = (polls: number, interval: number, ms: number, rest: Partial<CallSpec> = {}) => ({
  tool: 'report',
  input: 'may',
  output: 'r1',
  startMs: 0,
  endMs: ms,
  taskPolls: polls,
  pollIntervalMs: interval,
  ...rest,
});

const withoutInterval = ({ pollIntervalMs: _, ...rest }: CallSpec): CallSpec => rest;

const detect = (specs: CallSpec[]) => taskPolling.detect(scopeOf(specs), DEFAULT_LOOP_THRESHOLDS);

describe('polling_faster_than_interval', () => {
  it('flags a task polled 40 times in 1 s against an interval of 1 s, with what it saw', () => {
    const flags = detect([task(40, 1000, 1000)]);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({
      kind: 'polling_faster_than_interval',
      severity: 'warning',
      tool: 'report',
      count: 40,
      spanIds: ['s0'],
      evidence: { polls: 40, pollIntervalMs: 1000, observedPollIntervalMs: 25 },
    });
    expect(flags[0]?.summary).toContain('every 25 ms on average');
    expect(flags[0]?.summary).toContain('every 1000 ms (40× as often)');
    // Its waste is the server's, not the agent's: no calls wasted to add to the loops' totals.
    expect(flags[0]?.evidence?.wasted).toBeUndefined();
  });

  it.each([
    { name: 'polled at its interval', spec: task(6, 25, 6 * 25 + 4) },
    { name: 'polled a little faster than its interval', spec: task(10, 100, 600) },
    { name: 'polled fast, but fewer times than the poll threshold', spec: task(4, 1000, 40) },
    { name: 'no interval given', spec: withoutInterval(task(40, 1000, 40)) },
    { name: 'no task', spec: { tool: 'look', input: 'friday', startMs: 0, endMs: 5 } },
  ])('stays quiet for a task $name', ({ spec }) => {
    expect(detect([spec])).toEqual([]);
  });

  it('uses the poll threshold: fewer polls flag when it is lower', () => {
    const flags = taskPolling.detect(scopeOf([task(3, 1000, 30)]), {
      ...DEFAULT_LOOP_THRESHOLDS,
      pollMinCalls: 3,
    });
    expect(flags.map((f) => f.kind)).toEqual(['polling_faster_than_interval']);
  });

  it('needs no earlier call for its key: one call is enough to re-read the trace', () => {
    const [fast] = scopeOf([task(40, 1000, 1000)]).calls;
    const [slow] = scopeOf([task(6, 25, 160)]).calls;
    const keys = triggerKeys(fast as never).filter((k) => k.key.startsWith('fast-poll'));
    expect(keys).toEqual([{ key: 'fast-poll\u0000s0', wholeScope: false, prior: 0 }]);
    expect(triggerKeys(slow as never).some((k) => k.key.startsWith('fast-poll'))).toBe(false);
  });

  it('one logical call per task raises no loop of any other kind, polled fast or not', () => {
    // A task's six polls in one call, and a booking of two legs, beside each other: nothing repeats.
    const scope = scopeOf([
      task(6, 25, 160, { startMs: 0 }),
      { tool: 'book', input: 'friday', output: 'b', startMs: 200, endMs: 260 },
    ]);
    expect(detectLoops(scope)).toEqual([]);
  });
});
