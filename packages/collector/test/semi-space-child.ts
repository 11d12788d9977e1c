// Child of young-generation.test.ts: as the bin does, V8's growth factor is held at 1 (a flag of the process,
// kept across threads' starts); then two threads start as storage starts its writer, one given 4 MiB semi-spaces
// from its start (startKeepingFlags' `semiSpaceMb`, with the 12 MiB young generation writerLimits gives) and one
// after it given nothing, and each allocates with survival and reports the largest semi-space it had (the new
// space's used and available bytes). Prints both in MiB as JSON. V8 flags are the process's: this runs in its
// own process.
import { Worker } from 'node:worker_threads';
import { setHeapFlag, startKeepingFlags } from '../src/ops/heap-flags.js';

const MiB = 1024 * 1024;
setHeapFlag('--semi-space-growth-factor=1');
const entry = new URL('../worker/entry.mjs', import.meta.url);
// Allocates objects of which a share lives past a scavenge, reading its young generation's size as it goes.
const module = `data:text/javascript,${encodeURIComponent(`
  import { getHeapSpaceStatistics } from 'node:v8';
  import { parentPort } from 'node:worker_threads';
  let kept = [];
  let most = 0;
  for (let i = 0; i < 600000; i++) {
    kept.push({ n: i, s: 'x' + i });
    if (kept.length > 20000) kept = [];
    if (i % 1000 === 0)
      for (const space of getHeapSpaceStatistics())
        if (space.space_name === 'new_space')
          most = Math.max(most, space.space_used_size + space.space_available_size);
  }
  parentPort.postMessage(most);
`)}`;

async function youngOf(semiSpaceMb: number | undefined): Promise<number> {
  const worker = startKeepingFlags(
    (started) =>
      new Worker(entry, {
        // Plain JavaScript: not this process's tsx, whose loading would run before the thread's first line.
        execArgv: [],
        workerData: { module, source: false, started },
        resourceLimits: { maxYoungGenerationSizeMb: 12 },
      }),
    semiSpaceMb,
  );
  const most = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  return most / MiB;
}

const sized = await youngOf(4);
const after = await youngOf(undefined);
process.stdout.write(JSON.stringify({ sized, after }));
