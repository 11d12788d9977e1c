// Starts one of this folder's worker modules (writer, reader, checkpoint) through worker/entry.mjs, which
// registers tsx first when running from sources, so the same code runs from `src` and from the built package.
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { startKeepingFlags } from '../../ops/heap-flags.js';

/** `limits`: the thread's heap (the writer's, from memory-shares.ts). */
export function startStorageWorker(
  name: 'writer-worker' | 'checkpoint-worker' | 'reader-worker',
  data: Record<string, unknown>,
  limits?: ResourceLimits,
): Worker {
  const here = import.meta.url;
  const source = here.endsWith('.ts');
  // A thread's start puts V8's flags back: the HTTP thread's young generation cap is set again (heap-flags.ts).
  return startKeepingFlags(
    (started) =>
      new Worker(new URL('../../../worker/entry.mjs', here), {
        resourceLimits: limits,
        workerData: {
          module: new URL(`./${name}.${source ? 'ts' : 'js'}`, here).href,
          source,
          started,
          ...data,
        },
      }),
  );
}
