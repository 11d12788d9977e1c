// The proxy's V8 heap flags: set at run time they keep a real process's young generation from growing, and a
// user's own heap flags leave them unset. Each process case runs in a fresh Node (flags are process-wide).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { userShapesHeap } from './heap-flags.js';

const run = promisify(execFile);
const TSX = import.meta.resolve('tsx');
const HEAP_FLAGS_TS = fileURLToPath(new URL('./heap-flags.ts', import.meta.url));

// Allocates ~100 MB of objects that each live through ~200,000 later allocations, the survival that makes V8
// double its young generation, and prints the young generation's size before and the largest it reached (V8 may
// also shrink it again when the process looks idle, as on a busy machine it can).
const GROW = `
import v8 from 'node:v8';
import { limitHeapGrowth } from ${JSON.stringify(HEAP_FLAGS_TS)};
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const outcome = process.argv[1] === 'limit' ? limitHeapGrowth() : undefined;
const before = young();
const ring = new Array(200000);
let largest = before;
for (let i = 0; i < 2000000; i++) {
  ring[i % ring.length] = { i, s: 'x' + i };
  if (i % 10000 === 0) largest = Math.max(largest, young());
}
console.log(JSON.stringify({ before, largest: Math.max(largest, young()), outcome }));
`;

async function youngGeneration(mode: 'limit' | 'default', nodeOptions = '') {
  const { stdout } = await run(
    process.execPath,
    ['--import', TSX, '--input-type=module', '-e', GROW, mode],
    { env: { ...process.env, NODE_OPTIONS: nodeOptions } },
  );
  return JSON.parse(stdout) as { before: number; largest: number; outcome?: unknown };
}

describe('limitHeapGrowth', () => {
  it('keeps the young generation at its size in a process where it otherwise grows', async () => {
    const [unlimited, limited] = await Promise.all([
      youngGeneration('default'),
      youngGeneration('limit'),
    ]);
    expect(unlimited.largest).toBeGreaterThan(unlimited.before);
    expect(limited.outcome).toEqual({
      applied: ['--semi-space-growth-factor=1', '--heap-growing-percent=10'],
    });
    expect(limited.largest).toBe(limited.before);
  });

  it('sets nothing when NODE_OPTIONS shapes the heap, and the young generation grows as the user chose', async () => {
    const chosen = await youngGeneration('limit', '--max-semi-space-size=16');
    expect(chosen.outcome).toEqual({ applied: [], reason: 'user-flags' });
    expect(chosen.largest).toBeGreaterThan(chosen.before);
  });

  it('takes heap flags on the command line or in NODE_OPTIONS, and no other flag, as the user choosing', () => {
    for (const own of [
      '--max-semi-space-size=4',
      '--semi_space_growth_factor=3',
      '--optimize-for-size',
    ])
      expect(userShapesHeap([own], '')).toBe(true);
    expect(userShapesHeap([], '--enable-source-maps --heap-growing-percent=50')).toBe(true);
    expect(
      userShapesHeap(['--enable-source-maps', '--max-old-space-size=512'], '--no-warnings'),
    ).toBe(false);
  });
});
