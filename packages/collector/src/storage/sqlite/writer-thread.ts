// The main-thread handle of the writer thread (writer-worker.ts): one write or retention step at a time, in
// order; a thread that dies fails what was in flight (the ingest route answers 503) and starts again.
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { LoopThresholds } from '../../detection/index.js';
import type { WriteOutcome } from '../contract.js';
import type { WritePlan } from '../write-plan.js';
import type { SqliteMemory } from './memory-shares.js';
import { startStorageWorker } from './storage-worker.js';
import { ThreadClient } from './thread-client.js';

export type WriterBody =
  | { type: 'write'; plan: WritePlan }
  | { type: 'delete'; cutoffNs: bigint; maxTraces: number }
  | { type: 'close' };

export class WriterThread {
  readonly #client: ThreadClient<WriterBody>;

  constructor(
    path: string,
    synchronous: 'NORMAL' | 'FULL',
    thresholds: Partial<LoopThresholds>,
    memory: SqliteMemory,
  ) {
    const limits = {
      maxYoungGenerationSizeMb: memory.writerYoungMb,
      ...(memory.writerOldMb ? { maxOldGenerationSizeMb: memory.writerOldMb } : {}),
    };
    this.#client = new ThreadClient(() =>
      startStorageWorker(
        'writer-worker',
        { path, synchronous, thresholds, cacheKiB: memory.cacheKiB },
        limits,
      ),
    );
  }

  write(plan: WritePlan): Promise<WriteOutcome> {
    return this.#client.send({ type: 'write', plan }) as Promise<WriteOutcome>;
  }

  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number> {
    return this.#client.send({ type: 'delete', cutoffNs, maxTraces }) as Promise<number>;
  }

  utilization(): EventLoopUtilization | undefined {
    return this.#client.utilization();
  }

  close(): Promise<void> {
    return this.#client.close({ type: 'close' });
  }
}
