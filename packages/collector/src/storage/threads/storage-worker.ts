// Starts a storage worker module (SQLite's writer, reader and checkpointer, PostgreSQL's writer) through
// worker/entry.mjs, which registers tsx first when running from sources, so the same code runs from `src` and
// from the built package.
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { startKeepingFlags } from '../../ops/heap-flags.js';
import type { WriteStagesSource } from '../batch-rows.js';

/** A source module's URL to the URL of the same module built to JavaScript, or undefined when it has none. */
export type BuiltModules = (sourceUrl: string) => string | undefined;

let built: BuiltModules | undefined;

/** A thread's heap: Node's resource limits, and the size its semi-spaces start at in MiB (ops/heap-flags.ts). */
export type ThreadHeap = { resourceLimits?: ResourceLimits; semiSpaceMb?: number };

/**
 * Only for tests that load these sources: start the threads from JavaScript built from the same files
 * (packages/collector/test/built.ts), not under tsx, whose loader hooks cost every thread about half a second
 * of CPU (docs/decisions/0058). The built package never calls it: its threads are JavaScript already.
 */
export function startWorkersFromBuilt(modules: BuiltModules | undefined): void {
  built = modules;
}

/**
 * Starts the module `name` beside `from` (the caller's `import.meta.url`), in the same form (source or built).
 * `heap`: the thread's heap (a writer's, from its backend's share of the memory limit).
 */
export function startStorageWorker(
  from: string,
  name: string,
  data: { stages?: WriteStagesSource; [key: string]: unknown },
  heap: ThreadHeap = {},
): Worker {
  const here = import.meta.url;
  const source = from.endsWith('.ts');
  const module = new URL(`./${name}.${source ? 'ts' : 'js'}`, from).href;
  // A thread runs wholly from one or the other: its module and the write stages it imports (batch-rows.ts).
  const builtModule = source ? built?.(module) : undefined;
  const builtStages = data.stages && built?.(data.stages.module);
  const fromBuilt =
    builtModule !== undefined && (data.stages === undefined || builtStages !== undefined);
  // A thread's start puts V8's flags back: the HTTP thread's young generation cap is set again (heap-flags.ts).
  return startKeepingFlags(
    (started) =>
      new Worker(new URL('../../../worker/entry.mjs', here), {
        ...(heap.resourceLimits ? { resourceLimits: heap.resourceLimits } : {}),
        workerData: fromBuilt
          ? {
              ...data,
              ...(data.stages ? { stages: { ...data.stages, module: builtStages } } : {}),
              module: builtModule,
              source: false,
              started,
            }
          : { ...data, module, source, started },
      }),
    heap.semiSpaceMb,
  );
}
