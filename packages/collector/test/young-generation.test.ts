// The HTTP thread's young generation cap (src/ingest/young-generation.ts) in a real V8: it lets the young
// generation grow to the cap and no further, and a thread started as storage starts its threads
// (`startKeepingFlags`, worker/entry.mjs) does not undo it, though a new isolate puts V8's growth factor back, even
// with allocation going on at once. The control starts its thread plainly and sees the young generation grow past
// the cap: what a thread started otherwise would do to a memory-limited collector. A storage thread given a
// semi-space size starts with it, since with the factor held it could never grow to it.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/** Runs a child under tsx; `nodeFlags`: V8 flags on its command line. */
async function child(file: string, nodeFlags: string[], ...args: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...nodeFlags,
    '--conditions=@toolscope/source',
    '--import',
    'tsx',
    join(here, file),
    ...args,
  ]);
  return JSON.parse(stdout);
}

const run = (mode: 'keep' | 'plain') =>
  child('young-generation-child.ts', ['--semi-space-growth-factor=1'], mode) as Promise<{
    grewTo: number;
    after: number;
  }>;

describe('the young generation cap', () => {
  it('grows the young generation to the cap and keeps it there across a worker thread’s start', async () => {
    const r = await run('keep');
    expect(r.grewTo).toBe(8);
    expect(r.after).toBeLessThanOrEqual(8);
  });

  it('is undone by a thread started plainly (the control)', async () => {
    const r = await run('plain');
    expect(r.grewTo).toBe(8);
    expect(r.after).toBeGreaterThan(8);
  });
});

describe('a storage thread’s semi-spaces (storage/threads/writer-memory.ts)', () => {
  it('start at the size given, where the held factor keeps a thread given none at V8’s', async () => {
    // The child holds the factor at 1 itself, as the bin does: a heap flag on its command line is the user's,
    // which storage leaves alone.
    const r = (await child('semi-space-child.ts', [])) as { sized: number; after: number };
    // A 4 MiB semi-space (less its pages' headers); the thread started after it, with the flag put back, stays
    // at the 2 MiB V8 starts it at (the writer's before decision 0074).
    expect(r.sized).toBeGreaterThan(3.5);
    expect(r.after).toBeLessThanOrEqual(2);
  });
});
