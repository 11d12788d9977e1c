import { describe, expect, it } from 'vitest';
import { eluReadings, PackBalance } from './pack-balance.js';

/** How many of `n` batches are packed on the decoding thread, readings fixed. */
function packedHere(balance: PackBalance, n: number): number {
  let here = 0;
  for (let i = 0; i < n; i++) if (balance.packHere()) here++;
  return here;
}

describe('PackBalance', () => {
  it('packs half the batches on each thread while both are as busy', () => {
    const b = new PackBalance(() => ({ here: 0.6, writer: 0.61 }), 4);
    expect(packedHere(b, 400)).toBe(200);
    expect(b.share).toBe(0.5);
  });

  it('moves the packing to the writer while the decoding thread is busier, and back', () => {
    let r = { here: 0.9, writer: 0.5 };
    const b = new PackBalance(() => r, 4);
    packedHere(b, 40);
    expect(b.share).toBe(0);
    expect(packedHere(b, 100)).toBe(0);
    r = { here: 0.4, writer: 0.95 };
    packedHere(b, 40);
    expect(b.share).toBe(1);
    expect(packedHere(b, 100)).toBe(100);
  });

  it('keeps its share when there is no reading (the writer thread restarting)', () => {
    const b = new PackBalance(() => undefined, 2);
    expect(packedHere(b, 10)).toBe(5);
    expect(b.share).toBe(0.5);
  });

  it("reads the writer's utilization since the last reading, and none across a restart", () => {
    // Cumulative readings as node gives them (ms); the third is a restarted thread's, counting from zero.
    const snapshots = [
      { idle: 100, active: 100, utilization: 0.5 },
      { idle: 120, active: 180, utilization: 0.6 },
      { idle: 5, active: 1, utilization: 0.17 },
      { idle: 25, active: 21, utilization: 0.46 },
    ];
    let next = 0;
    const read = eluReadings(() => snapshots[next++]);
    expect(read()?.writer).toBe(0.8);
    expect(read()).toBeUndefined();
    expect(read()?.writer).toBe(0.5);
  });
});
