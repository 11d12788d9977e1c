// The PostgreSQL writer thread (pg-writer-thread.ts): its own pool, the write stages built here, and the batches
// posted to it written as they come, several at once (each in its own transaction, pg-writer.ts). The pool has a
// connection for each write the collector runs at once (Storage.concurrentWrites), so a write never waits for one:
// a wait that times out is the server not answering, a connection fault like any other.
import { parentPort, workerData } from 'node:worker_threads';
import { loadWriteStages } from '../batch-rows.js';
import { receivedBatch } from '../threads/posted-batch.js';
import { failureReply, type ThreadReply } from '../threads/thread-client.js';
import { createPool } from './pg-db.js';
import { PgWriter } from './pg-writer.js';
import type { PgWriterBody, PgWriterInit } from './pg-writer-thread.js';

type WorkerRequest = PgWriterBody & { id: number };

const init = workerData as PgWriterInit;
const port = parentPort;
if (!port) throw new Error('pg-writer-worker must run in a worker thread');

const codeOf = (error: Error) => {
  const code = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
};
const pool = createPool(init.url, init.bounds, (error) =>
  port.postMessage({ notice: 'fault', message: error.message, code: codeOf(error) }),
);
// The stages the composition root named, built in this thread (batch-rows.ts): messages wait until then.
const writer = new PgWriter(pool, await loadWriteStages(init.stages), (what) =>
  port.postMessage({ notice: 'damage', what }),
);
port.on('message', (request: WorkerRequest) => {
  const { id } = request;
  const done = (value: unknown) => port.postMessage({ id, ok: true, value } satisfies ThreadReply);
  const fail = (error: unknown) => port.postMessage(failureReply(id, error));
  switch (request.type) {
    case 'write':
      // A batch that is not whole fails its own write, not the thread.
      Promise.resolve(request.batch)
        .then(receivedBatch)
        .then((batch) => writer.write(batch))
        .then(done, fail);
      return;
    case 'close':
      pool.end().then(() => done(null), fail);
      return;
  }
});
