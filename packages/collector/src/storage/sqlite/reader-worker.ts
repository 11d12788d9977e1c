// The reader thread: answers the reader side of the storage contract from its own connection, so a heavy read
// (flags over a day of a million calls) never holds the HTTP thread that acknowledges ingest.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { sqlReaders } from '../sql/readers.js';
import { failureReply, type ThreadReply } from '../threads/thread-client.js';
import { sqliteReadDb, tuneConnection } from './read-db.js';
import type { ReaderBody } from './reader-thread.js';

type Init = { path: string; cacheKiB: number };

const init = workerData as Init;
const port = parentPort;
if (!port) throw new Error('reader-worker must run in a worker thread');

const db = new Database(init.path);
tuneConnection(db, init.cacheKiB);
// Damage found while reading goes to the main thread, which logs it.
const damaged = (what: string) => port.postMessage({ notice: 'damage', what });
const reader = sqlReaders(sqliteReadDb(db, damaged));

async function answer(request: ReaderBody): Promise<unknown> {
  switch (request.type) {
    case 'read': {
      const method = reader[request.method] as (...args: unknown[]) => Promise<unknown>;
      return method.apply(reader, request.args);
    }
    case 'close':
      db.close();
      return null;
  }
}

port.on('message', (request: ReaderBody & { id: number }) => {
  answer(request).then(
    (value) => port.postMessage({ id: request.id, ok: true, value } satisfies ThreadReply),
    (error: unknown) => port.postMessage(failureReply(request.id, error)),
  );
});
