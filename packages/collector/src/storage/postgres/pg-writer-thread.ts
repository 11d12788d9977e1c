// The main-thread handle of the PostgreSQL writer thread (pg-writer-worker.ts). Each batch's transaction runs
// there, on a pool of its own, so its round trips are answered by a thread that does nothing else: on the HTTP
// thread each one waited behind the decoding of whole requests (event-loop delay 8.5 ms on average, 22 ms at
// the 90th percentile under bench:ingest), while the batch held the conversation and rollup rows every other
// batch waits for (docs/decisions/0064-postgresql-writer-thread.md). Faults and damage the thread meets come
// back as notices; a thread that dies fails what was in flight (the ingest route answers 503) and starts again,
// with the next write, or at once (after a backoff) when it merges rollup rows, which it does only once told to
// (a serving collector, once the schema is its own).
import type { WriteStagesSource } from '../batch-rows.js';
import type { WriteOutcome } from '../contract.js';
import { type SealedWrite, sealedWrite, type WriteInput } from '../threads/sealed-batch.js';
import { startStorageWorker, type ThreadHeap } from '../threads/storage-worker.js';
import { ThreadClient, type ThreadNotice } from '../threads/thread-client.js';
import type { PoolBounds } from './pg-db.js';

export type PgWriterBody = SealedWrite | { type: 'merge' } | { type: 'close' };

/** What the thread starts from: the database, its pool's bounds, the stages it runs, how often it merges. */
export type PgWriterInit = {
  url: string;
  bounds: PoolBounds;
  stages: WriteStagesSource;
  /** Period of the merge step of the appended rollup rows (pg-rollup-merge.ts), in ms. */
  mergeEveryMs: number;
  /** Whether the thread merges from its start (a thread started again after it has been told to). */
  merging?: boolean;
};

/** Waits before a merging thread that died is started again: doubled per death, up to a minute. */
const RESTART_MS = 1_000;
const RESTART_MAX_MS = 60_000;

/**
 * The thread's notices: a connection's fault (for PgHealth), a stored value it could not use, the merge step
 * failing (once per run of failures) and working again.
 */
export type PgWriterNotices = {
  fault(error: Error): void;
  damage(what: string): void;
  mergeFailed(error: Error): void;
  mergeRecovered(): void;
  /** The database's schema is another version than this collector's: it merges no more. */
  mergeStopped(version: number): void;
};

export class PgWriterThread {
  readonly #client: ThreadClient<PgWriterBody>;
  #merging = false;
  #closed = false;
  #deaths = 0;
  #startedAt = 0;
  #restart: NodeJS.Timeout | undefined;

  constructor(init: PgWriterInit, notices: PgWriterNotices, heap: ThreadHeap) {
    this.#client = new ThreadClient(
      () => {
        this.#startedAt = performance.now();
        return startStorageWorker(
          import.meta.url,
          'pg-writer-worker',
          { ...init, merging: this.#merging },
          heap,
        );
      },
      { onNotice: (notice) => heard(notice, notices), onDeath: () => this.#died() },
    );
  }

  write(batch: WriteInput): Promise<WriteOutcome> {
    // A write after close would start a thread nobody closes.
    if (this.#closed) return Promise.reject(new Error('the PostgreSQL writer thread is closed'));
    const { body, transfer } = sealedWrite(batch);
    return this.#client.send(body, transfer) as Promise<WriteOutcome>;
  }

  /**
   * Starts the merge step of the appended rollup rows on this thread (started now if need be), from now until
   * it closes. A thread's death is logged by the client; this one is then started again.
   */
  startMerging(): void {
    if (this.#merging || this.#closed) return;
    this.#merging = true;
    // Refused only when the thread dies first: ThreadClient logs the death, and #died starts a merging thread
    // again (its workerData says to merge), so nothing is lost by not saying it twice.
    this.#client.send({ type: 'merge' }).catch(() => undefined);
  }

  /** Ends the thread's pool (after the writes in flight) and the thread. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restart);
    return this.#client.close({ type: 'close' });
  }

  #died(): void {
    if (!this.#merging || this.#closed) return;
    // A thread that lived a minute starts again soon; one that keeps dying, less and less often.
    if (performance.now() - this.#startedAt > RESTART_MAX_MS) this.#deaths = 0;
    const wait = Math.min(RESTART_MAX_MS, RESTART_MS * 2 ** this.#deaths++);
    clearTimeout(this.#restart);
    this.#restart = setTimeout(() => {
      if (this.#closed) return;
      try {
        this.#client.start();
      } catch (error) {
        // A thread that cannot even start (no file descriptors left, say): said, and tried again later.
        process.emitWarning(
          `toolscope: the PostgreSQL writer thread did not start: ${String(error)}`,
        );
        this.#died();
      }
    }, wait);
    this.#restart.unref();
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
  if (notice.notice === 'merge-stopped') notices.mergeStopped(Number(notice.version));
}
