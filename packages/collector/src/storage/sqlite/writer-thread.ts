// The main-thread handle of the writer thread (writer-worker.ts): one write or retention step at a time, in
// order; a thread that dies fails what was in flight (the ingest route answers 503) and starts again.
import type { WriteStagesSource } from '../batch-rows.js';
import type { WriteOutcome } from '../contract.js';
import { type SealedWrite, sealedWrite, type WriteInput } from '../threads/sealed-batch.js';
import { startStorageWorker } from '../threads/storage-worker.js';
import { ThreadClient } from '../threads/thread-client.js';
import { writerLimits } from '../threads/writer-memory.js';
import type { SqliteMemory } from './memory-shares.js';

export type WriterBody =
  | SealedWrite
  | { type: 'delete'; cutoffNs: bigint; maxTraces: number }
  | { type: 'close' };

export class WriterThread {
  readonly #client: ThreadClient<WriterBody>;

  constructor(
    path: string,
    synchronous: 'NORMAL' | 'FULL',
    stages: WriteStagesSource,
    memory: SqliteMemory,
  ) {
    const heap = writerLimits(memory);
    this.#client = new ThreadClient(() =>
      startStorageWorker(
        import.meta.url,
        'writer-worker',
        { path, synchronous, stages, cacheKiB: memory.cacheKiB, recentTraces: memory.recentTraces },
        heap,
      ),
    );
  }

  write(batch: WriteInput): Promise<WriteOutcome> {
    const { body, transfer } = sealedWrite(batch);
    return this.#client.send(body, transfer) as Promise<WriteOutcome>;
  }

  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number> {
    return this.#client.send({ type: 'delete', cutoffNs, maxTraces }) as Promise<number>;
  }

  close(): Promise<void> {
    return this.#client.close({ type: 'close' });
  }
}
