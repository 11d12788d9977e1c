// The HTTP thread's young generation cap (src/ingest/young-generation.ts) in a real V8: it lets the young
// generation grow to the cap and no further, and a thread started as storage starts its threads
// (`startKeepingFlags`, worker/entry.mjs) does not undo it, though a new isolate puts V8's growth factor back, even
// with allocation going on at once. The control starts its thread plainly and sees the young generation grow past
// the cap: what a thread started otherwise would do to a memory-limited collector.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

async function run(mode: 'keep' | 'plain'): Promise<{ grewTo: number; after: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--semi-space-growth-factor=1',
    '--conditions=@toolscope/source',
    '--import',
    'tsx',
    join(here, 'young-generation-child.ts'),
    mode,
  ]);
  return JSON.parse(stdout) as { grewTo: number; after: number };
}

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
