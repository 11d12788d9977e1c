// The main-thread handle of the checkpointer thread (checkpoint-worker.ts).
//
// SQLite rewinds the WAL only when a write transaction begins with every frame already copied back, which under
// sustained load never happens on its own: the writer starts its next transaction while the checkpointer copies
// the last one. So the writer keeps an automatic checkpoint at WRITER_AUTOCHECKPOINT_PAGES: by then the
// checkpointer has copied (and fsynced) almost all of the WAL, so the writer's checkpoint copies only the last
// frames, and the WAL starts over. It also covers a checkpointer that stopped.
import type { Worker } from 'node:worker_threads';
import { startStorageWorker } from '../threads/storage-worker.js';
import type { CheckpointInit, CheckpointReply } from './checkpoint-worker.js';

/** Why a checkpoint failed: SQLite's code and message. */
export type CheckpointCause = { code?: string; message: string };

/** `wal_autocheckpoint` of the writer connection while a checkpointer runs (32 MiB of WAL with 8 KiB pages). */
export const WRITER_AUTOCHECKPOINT_PAGES = 4096;

export class Checkpointer {
  readonly #worker: Worker;
  #closed: Promise<void> | undefined;
  /** Exited already (a thread that failed to start, out of memory for one): close() has nothing to wait for. */
  #exited = false;

  /**
   * `onError` hears each run of failed checkpoints once: the message begins with SQLite's code when there is one
   * (`SQLITE_IOERR_WRITE: disk I/O error`), and the cause comes apart as well, for a log line.
   */
  constructor(init: CheckpointInit, onError: (message: string, cause: CheckpointCause) => void) {
    this.#worker = startStorageWorker(import.meta.url, 'checkpoint-worker', init);
    const report = (message: string, code: unknown) => {
      const cause = typeof code === 'string' ? { code, message } : { message };
      onError(cause.code ? `${cause.code}: ${message}` : message, cause);
    };
    this.#worker.on('message', (reply: CheckpointReply) => {
      if (reply.type === 'error') report(reply.message, reply.code);
    });
    // A SqliteError thrown in the thread arrives as a plain object with its code and no message.
    this.#worker.on('error', (error: unknown) => {
      const message = Reflect.get(Object(error), 'message');
      report(
        typeof message === 'string' ? message : 'the checkpoint thread stopped',
        Reflect.get(Object(error), 'code'),
      );
    });
    this.#worker.once('exit', () => {
      this.#exited = true;
    });
    // Not a reason to keep the process alive: the writer's safety-net checkpoint covers a stopped checkpointer.
    this.#worker.unref();
  }

  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      // Its 'exit' came before this close and will not come again: waiting for it would hang shutdown.
      if (this.#exited) return resolve();
      this.#worker.on('message', (reply: CheckpointReply) => {
        if (reply.type === 'closed') void this.#worker.terminate().then(() => resolve());
      });
      this.#worker.once('exit', () => resolve());
      // Unref'd while running; held while closing, or a process with nothing else to do exits before the reply.
      this.#worker.ref();
      this.#worker.postMessage('close');
    });
    return this.#closed;
  }
}
