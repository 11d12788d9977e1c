// The columns of a batch's calls: each call's keys and ended runs where its offsets say, however far the
// columns had to grow, and one streak id per run name.
import { describe, expect, it } from 'vitest';
import type { TriggerKey } from '../detectors/loops/index.js';
import { keyHash } from './key-filter.js';
import { streakIdOf } from './run-streaks.js';
import { callKeysOf, NO_RUN, TouchedCalls } from './touched.js';

const key = (i: number, j: number): TriggerKey =>
  j === 2
    ? { key: `k${i}.${j}`, wholeScope: false, prior: 3, run: `run${i % 2}` }
    : { key: `k${i}.${j}`, wholeScope: j === 1, prior: j + 1 };

describe('TouchedCalls', () => {
  it('keeps every call, key and ended run where its offsets point, past its first capacity', () => {
    const t = new TouchedCalls(1);
    for (let i = 0; i < 40; i++)
      t.add(
        `t${i}`,
        i % 3 === 0 ? null : 'conv',
        'put',
        BigInt(i) * 1_000_000n,
        callKeysOf(
          [0, 1, 2].map((j) => key(i, j)),
          i % 5 === 0 ? ['run0', 'run1'] : [],
        ),
      );
    expect(t.length).toBe(40);
    for (let i = 0; i < 40; i++) {
      expect(t.traceId[i]).toBe(`t${i}`);
      expect(t.conversationId[i]).toBe(i % 3 === 0 ? null : 'conv');
      expect(t.startNs[i]).toBe(i * 1_000_000);
      const k0 = t.keyAt[i] as number;
      expect(t.keyAt[i + 1]).toBe(k0 + 3);
      for (let j = 0; j < 3; j++) {
        const h = keyHash(`k${i}.${j}`);
        expect([t.hashA[k0 + j], t.hashB[k0 + j]]).toEqual([h.a, h.b]);
        expect(t.prior[k0 + j]).toBe(j === 2 ? 3 : j + 1);
        expect(t.wholeScope[k0 + j]).toBe(j === 1 ? 1 : 0);
        expect(t.run[k0 + j]).toBe(j === 2 ? streakIdOf(keyHash(`run${i % 2}`)) : NO_RUN);
      }
      const ends = [...t.ends.subarray(t.endAt[i], t.endAt[i + 1])];
      expect(ends).toEqual(
        i % 5 === 0 ? [streakIdOf(keyHash('run0')), streakIdOf(keyHash('run1'))] : [],
      );
    }
  });
});
