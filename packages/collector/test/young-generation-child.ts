// Child of young-generation.test.ts: allocates with survival under the young generation cap, starts a thread once
// the cap is reached (as storage does, through `startKeepingFlags` and the storage threads' entry, or plainly),
// allocates on without checking, and prints the young generation's sizes as JSON. V8 flags are the process's:
// this runs in its own process.
import { Worker } from 'node:worker_threads';
import { YoungGenerationCap, youngGenerationBytes } from '../src/ingest/young-generation.js';
import { startKeepingFlags } from '../src/ops/heap-flags.js';

const MiB = 1024 * 1024;
const keep = process.argv[2] === 'keep';
// Node's command line started the process with a growth factor of 1 (so loading tsx did not grow it); the cap
// is told no user flag shapes the heap, since that one is the test's.
const cap = new YoungGenerationCap({ maxBytes: 8 * MiB, userFlags: false });
let survivors: { n: number; s: string }[] = [];
const allocate = (rounds: number, check: boolean) => {
  let max = 0;
  for (let i = 0; i < rounds; i++) {
    survivors.push({ n: i, s: `x${i}` });
    if (survivors.length > 50_000) survivors = [];
    if (i % 1000 === 0) {
      if (check) cap.check();
      max = Math.max(max, youngGenerationBytes());
    }
  }
  return max;
};
const grewTo = allocate(500_000, true);
const entry = new URL('../worker/entry.mjs', import.meta.url);
const module = 'data:text/javascript,setTimeout(() => {}, 300)';
const worker = keep
  ? // Allocation goes on at once, as the HTTP thread decodes the next request while the writer starts.
    startKeepingFlags(
      (started) => new Worker(entry, { workerData: { module, source: false, started } }),
    )
  : new Worker(entry, { workerData: { module, source: false } });
if (!keep) await new Promise((resolve) => worker.once('online', resolve));
const after = allocate(1_500_000, false);
await worker.terminate();
process.stdout.write(JSON.stringify({ grewTo: grewTo / MiB, after: after / MiB }));
