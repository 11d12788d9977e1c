// The run counts beside a conversation's key filter: a churn key counts only its calls since the tool's latest
// run-ending call (a success), whatever order the calls arrive in, and falls back to the filter's rungs where it
// has no count; a check is never dropped where a run may be long enough.
import { describe, expect, it } from 'vitest';
import type { TriggerKey } from '../detectors/loops/index.js';
import { emptyFilter, filterBytes, filterOf, type KeyFilter, keyHash } from './key-filter.js';
import {
  countRunKey,
  emptyStreaks,
  endRun,
  streakIdOf,
  streaksBytes,
  streaksOf,
} from './run-streaks.js';
import { batchChecks } from './scopes.js';
import { type TouchedCall, touchedCalls } from './touched.js';

const RUN = 'argument_churn\u0000put';
const churnKey: TriggerKey = { key: 'churn:put:INVALID', wholeScope: false, prior: 3, run: RUN };

/** A call of `put` in its own trace of one conversation at `t` ms: failing (churn key) or ending the run. */
const call = (t: number, fails: boolean): TouchedCall => ({
  traceId: `trace-${t}`,
  conversationId: 'conv',
  tool: 'put',
  startNs: BigInt(t) * 1_000_000n,
  keys: fails ? [churnKey] : [],
  ends: fails ? [] : [RUN],
});

/** Writes each batch through a stored filter (read back from its bytes each time); the batches that asked for a check. */
function checkedBatches(batches: TouchedCall[][]): number[] {
  let stored: Uint8Array | null = null;
  const out: number[] = [];
  batches.forEach((calls, i) => {
    const filter = filterOf(stored);
    const { checks, changed } = batchChecks(
      touchedCalls(calls),
      () => false,
      () => filter,
    );
    if (checks.some((c) => c.scope === 'conversation')) out.push(i);
    if (changed.has('conv')) stored = filterBytes(filter);
  });
  return out;
}

const F = (t: number) => [call(t, true)];
const S = (t: number) => [call(t, false)];

/** A run's or key's streak id. */
const id = (text: string) => streakIdOf(keyHash(text));

describe('run counts', () => {
  it.each([
    {
      name: 'failures between successes, in order, ask for nothing however many',
      batches: [F(1), S(2), F(3), S(4), F(5), S(6), F(7), S(8), F(9), S(10), F(11)],
      checked: [],
    },
    {
      name: 'four failures in a row ask for a check at the fourth, and at each one after',
      batches: [S(0), F(1), F(2), F(3), F(4), F(5)],
      checked: [4, 5],
    },
    {
      name: 'a success that arrives late, before the failures it follows, does not reset them',
      batches: [F(10), F(11), F(12), S(5), F(13)],
      checked: [4],
    },
    {
      name: 'a failure that starts before the latest success asks for a check (what lies between is unknown)',
      batches: [F(1), S(10), F(5)],
      checked: [2],
    },
    {
      name: 'a success after every counted failure resets the count',
      batches: [F(1), F(2), F(3), S(4), F(5), F(6), F(7)],
      checked: [],
    },
    {
      name: 'failures of one batch count one by one',
      batches: [[...F(1), ...F(2), ...F(3), ...F(4)]],
      checked: [0],
    },
  ])('$name', ({ batches, checked }) => {
    expect(checkedBatches(batches)).toEqual(checked);
  });

  it('falls back to the rungs for a key the filter knew before its count began', () => {
    // An earlier filter saw the key three times (rungs 1 to 3) and has no count for it.
    const filter: KeyFilter = emptyFilter();
    batchChecks(
      touchedCalls([1, 2, 3].map((t) => call(t, true))),
      () => false,
      () => filter,
    );
    filter.streaks = emptyStreaks();
    const checks = batchChecks(
      touchedCalls([call(10, false), call(11, true)]),
      () => false,
      () => filter,
    ).checks;
    expect(checks).toEqual([{ scope: 'conversation', key: 'conv', tools: ['put'] }]);
  });

  it('reads back what it stored, and a damaged table as empty', () => {
    const s = emptyStreaks();
    countRunKey(s, id('a'), id('k1'), 3, true);
    expect(endRun(s, id('a'), 5)).toBe(true);
    countRunKey(s, id('b'), id('k2'), -3, true);
    // A run with no failure counted since it last ended keeps its end (and nothing is written back).
    expect(endRun(s, id('a'), 9)).toBe(false);
    const again = streaksOf(streaksBytes(s));
    expect(streaksBytes(again)).toEqual(streaksBytes(s));
    expect(again.runs.size).toBe(2);
    expect(streaksOf(streaksBytes(s).subarray(0, 7)).runs.size).toBe(0);
    expect(streaksOf(new Uint8Array([9])).runs.size).toBe(0);
  });

  it('keeps its counts upper bounds where starts round to one double (real times, nanoseconds apart)', () => {
    const T = 1_764_590_000_123_456_789n;
    expect(Number(T + 100n)).toBe(Number(T));
    const s = emptyStreaks();
    const [run, key] = [id('a'), id('k')];
    expect(countRunKey(s, run, key, Number(T + 100n), true)).toBe(1);
    // A success that may have come first (its start rounds to the failure's) resets nothing.
    expect(endRun(s, run, Number(T))).toBe(false);
    expect(countRunKey(s, run, key, Number(T + 300n), false)).toBe(2);
    // A success clearly later resets the count; a failure that rounds to that end asks for a re-read.
    expect(endRun(s, run, Number(T + 10_000n))).toBe(true);
    expect(countRunKey(s, run, key, Number(T + 10_050n), false)).toBe(Number.POSITIVE_INFINITY);
    expect(countRunKey(s, run, key, Number(T + 20_000n), false)).toBe(1);
  });

  it('reads a table stored with exact 64-bit times (as earlier builds wrote it)', () => {
    const T = 1_764_590_000_123_456_789n;
    const bytes = new Uint8Array(2 + 18 + 20);
    const v = new DataView(bytes.buffer);
    const [runHash, keyOf] = [keyHash('a'), keyHash('k')];
    const [run, key] = [streakIdOf(runHash), streakIdOf(keyOf)];
    v.setUint16(0, 1, true);
    v.setUint32(2, runHash.a, true);
    v.setUint32(6, runHash.b & 0x1fffff, true);
    v.setBigInt64(10, T, true);
    v.setUint16(18, 1, true);
    v.setUint32(20, keyOf.a, true);
    v.setUint32(24, keyOf.b & 0x1fffff, true);
    v.setUint32(28, 2, true);
    v.setBigInt64(32, T - 5_000n, true);
    const s = streaksOf(bytes);
    expect(s.keys).toBe(1);
    // Before the stored end: a re-read; after it: the stored count goes on.
    expect(countRunKey(s, run, key, Number(T - 1_000n), false)).toBe(Number.POSITIVE_INFINITY);
    expect(countRunKey(s, run, key, Number(T + 1_000n), false)).toBe(3);
  });
});
