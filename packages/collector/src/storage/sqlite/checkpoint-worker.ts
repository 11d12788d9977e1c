// The checkpointer thread: copies committed WAL frames into the database file every interval with its own
// connection (PRAGMA wal_checkpoint(PASSIVE), which never blocks the writer or readers). The fsyncs a checkpoint
// needs then never stall the writer thread's commits: measured, they were ~6 µs of every span's write time.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export type CheckpointInit = {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  intervalMs: number;
};

/** A failure carries SQLite's code (SQLITE_IOERR_WRITE, SQLITE_BUSY, …) when it has one. */
export type CheckpointReply =
  | { type: 'error'; message: string; code?: string }
  | { type: 'closed' };

const init = workerData as CheckpointInit;
const port = parentPort;
if (!port) throw new Error('checkpoint-worker must run in a worker thread');

const db = new Database(init.path);
db.pragma('busy_timeout = 5000');
// The checkpoint's fsyncs follow this connection's setting: the same as the writer's, so durability is unchanged.
db.pragma(`synchronous = ${init.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
let reported = false;

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    reported = false;
  } catch (error) {
    // A failed checkpoint loses nothing (the frames stay in the WAL); report once per run of failures.
    if (!reported) {
      reported = true;
      const code =
        typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
      port.postMessage({
        type: 'error',
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === 'string' ? { code } : {}),
      } satisfies CheckpointReply);
    }
  }
}, init.intervalMs);

port.on('message', (message: unknown) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  port.postMessage({ type: 'closed' } satisfies CheckpointReply);
});
