// The writer thread: owns the only writing connection and applies processed batches one at a time, so commits never
// hold the HTTP thread and API reads never wait for them (WAL).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { loadWriteStages, type WriteStagesSource } from '../batch-rows.js';
import { failureReply, type ThreadReply } from '../threads/thread-client.js';
import { BlockWriter } from './block-writer.js';
import { WRITER_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { useWal } from './wal-mode.js';
import type { WriterBody } from './writer-thread.js';

type WorkerRequest = WriterBody & { id: number };

type Init = {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  stages: WriteStagesSource;
  cacheKiB: number;
  recentTraces: number;
};

const init = workerData as Init;
const port = parentPort;
if (!port) throw new Error('writer-worker must run in a worker thread');

const db = new Database(init.path);
useWal(db);
db.pragma(`synchronous = ${init.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
db.pragma('busy_timeout = 5000');
db.pragma(`cache_size = -${Math.round(init.cacheKiB)}`);
db.pragma('temp_store = MEMORY');
// The checkpointer thread copies the WAL back as it grows; this connection checkpoints only every
// WRITER_AUTOCHECKPOINT_PAGES, to finish the copy and let the WAL start over (checkpointer.ts).
db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
// The stages the composition root named, built in this thread (batch-rows.ts): messages wait until then.
const writer = new BlockWriter(db, await loadWriteStages(init.stages), init.recentTraces);

port.on('message', (request: WorkerRequest) => {
  let reply: ThreadReply;
  try {
    switch (request.type) {
      case 'write':
        reply = { id: request.id, ok: true, value: writer.apply({ sealed: request.sealed }) };
        break;
      case 'delete':
        reply = {
          id: request.id,
          ok: true,
          value: writer.deleteBefore(request.cutoffNs, request.maxTraces),
        };
        break;
      case 'close':
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
        reply = { id: request.id, ok: true, value: null };
        break;
    }
  } catch (error) {
    reply = failureReply(request.id, error);
  }
  port.postMessage(reply);
});
