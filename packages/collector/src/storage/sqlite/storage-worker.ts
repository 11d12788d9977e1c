// Starts one of this folder's worker modules (writer, reader, checkpoint) through worker/entry.mjs, which
// registers tsx first when running from sources, so the same code runs from `src` and from the built package.
import { Worker } from 'node:worker_threads';

/**
 * The writer's young generation, in MiB. Each batch allocates its rows, keys and rollups and drops them at
 * commit; with the default a worker gets, they outlived scavenges and were copied. Per-thread profiles of
 * bench:storage (200,000 spans): the writer's GC took 1.11–1.27 s with the default, 0.79 s at 32, 0.59 s at 64.
 */
const WRITER_YOUNG_GENERATION_MB = 64;

export function startStorageWorker(
  name: 'writer-worker' | 'checkpoint-worker' | 'reader-worker',
  data: Record<string, unknown>,
): Worker {
  const here = import.meta.url;
  const source = here.endsWith('.ts');
  return new Worker(new URL('../../../worker/entry.mjs', here), {
    resourceLimits:
      name === 'writer-worker'
        ? { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB }
        : undefined,
    workerData: {
      module: new URL(`./${name}.${source ? 'ts' : 'js'}`, here).href,
      source,
      ...data,
    },
  });
}
