// The main-thread handle of the PostgreSQL writer thread (pg-writer-worker.ts). Each batch's transaction runs
// there, on a pool of its own, so its round trips are answered by a thread that does nothing else: on the HTTP
// thread each one waited behind the decoding of whole requests (event-loop delay 8.5 ms on average, 22 ms at
// the 90th percentile under bench:ingest), while the batch held the conversation and rollup rows every other
// batch waits for (docs/decisions/0064-postgresql-writer-thread.md). Faults and damage the thread meets come
// back as notices; a thread that dies fails what was in flight (the ingest route answers 503) and starts again.
import type { ResourceLimits } from 'node:worker_threads';
import type { WriteStagesSource } from '../batch-rows.js';
import type { WriteOutcome } from '../contract.js';
import { type PostedBatch, postedBatch } from '../threads/posted-batch.js';
import { startStorageWorker } from '../threads/storage-worker.js';
import { ThreadClient, type ThreadNotice } from '../threads/thread-client.js';
import type { WriteBatch } from '../write-batch.js';
import type { PoolBounds } from './pg-db.js';

export type PgWriterBody = { type: 'write'; batch: PostedBatch } | { type: 'close' };

/** What the thread starts from: the database, its pool's bounds, the stages it runs, how often it merges. */
export type PgWriterInit = {
  url: string;
  bounds: PoolBounds;
  stages: WriteStagesSource;
  /** Period of the merge step of the appended rollup rows (pg-rollup-merge.ts), in ms. */
  mergeEveryMs: number;
};

/**
 * The thread's notices: a connection's fault (for PgHealth), a stored value it could not use, the merge step
 * failing (once per run of failures) and working again.
 */
export type PgWriterNotices = {
  fault(error: Error): void;
  damage(what: string): void;
  mergeFailed(error: Error): void;
  mergeRecovered(): void;
};

export class PgWriterThread {
  readonly #client: ThreadClient<PgWriterBody>;

  constructor(init: PgWriterInit, notices: PgWriterNotices, limits: ResourceLimits) {
    this.#client = new ThreadClient(
      () => startStorageWorker(import.meta.url, 'pg-writer-worker', init, limits),
      (notice) => heard(notice, notices),
    );
    // Started now, not with the first write: its merge step folds the rows other collectors appended too.
    this.#client.start();
  }

  write(batch: WriteBatch): Promise<WriteOutcome> {
    return this.#client.send({ type: 'write', batch: postedBatch(batch) }) as Promise<WriteOutcome>;
  }

  /** Ends the thread's pool (after the writes in flight) and the thread. */
  close(): Promise<void> {
    return this.#client.close({ type: 'close' });
  }
}

function heard(notice: ThreadNotice, notices: PgWriterNotices): void {
  const error = () => {
    const code = typeof notice.code === 'string' ? notice.code : undefined;
    return Object.assign(new Error(String(notice.message)), code ? { code } : {});
  };
  if (notice.notice === 'damage') notices.damage(String(notice.what));
  if (notice.notice === 'fault') notices.fault(error());
  if (notice.notice === 'merge-failed') notices.mergeFailed(error());
  if (notice.notice === 'merge-recovered') notices.mergeRecovered();
}
