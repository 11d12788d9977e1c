// The main-thread handle of the writer thread (writer-worker.ts): one write or retention step at a time, in
// order; a thread that dies fails what was in flight (the ingest route answers 503) and starts again.
import type { WriteStagesSource } from '../batch-rows.js';
import type { WriteOutcome } from '../contract.js';
import { type PostedBatch, postedBatch } from '../threads/posted-batch.js';
import { isSealed, transferable, type WriteInput } from '../threads/sealed-batch.js';
import { startStorageWorker } from '../threads/storage-worker.js';
import { ThreadClient } from '../threads/thread-client.js';
import { writerLimits } from '../threads/writer-memory.js';
import type { SqliteMemory } from './memory-shares.js';

export type WriterBody =
  | { type: 'write'; batch: PostedBatch }
  | { type: 'write-sealed'; sealed: readonly Uint8Array[] }
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
    if (isSealed(batch))
      return this.#client.send(
        { type: 'write-sealed', sealed: batch.sealed },
        transferable(batch),
      ) as Promise<WriteOutcome>;
    return this.#client.send({ type: 'write', batch: postedBatch(batch) }) as Promise<WriteOutcome>;
  }

  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number> {
    return this.#client.send({ type: 'delete', cutoffNs, maxTraces }) as Promise<number>;
  }

  close(): Promise<void> {
    return this.#client.close({ type: 'close' });
  }
}
