// The HTTP thread's young generation cap (src/ingest/young-generation.ts) in a real V8: it lets the young
// generation grow to the cap and no further, and storage's threads (started through `keepAcross`) do not undo it,
// as a worker's start puts V8's flags back. The control starts its worker plainly and sees the young generation
// grow past the cap: what a thread started without `keepAcross` would do to a memory-limited collector.
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

  it('is undone by a worker started without keepAcross (the control)', async () => {
    const r = await run('plain');
    expect(r.grewTo).toBe(8);
    expect(r.after).toBeGreaterThan(8);
  });
});
