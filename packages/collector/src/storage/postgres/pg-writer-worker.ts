// The PostgreSQL writer thread (pg-writer-thread.ts): its own pool, the write stages built here, and the batches
// posted to it written as they come, several at once (each in its own transaction, pg-writer.ts); now and then,
// the merge step of the appended rollup rows (pg-rollup-merge.ts). The pool has a connection for each write the
// collector runs at once (Storage.concurrentWrites) and one more for the merge step, which may wait on locks up
// to the statement timeout: a write never waits for a connection another holds, so a wait that times out is the
// server not answering, a connection fault like any other.
import { parentPort, workerData } from 'node:worker_threads';
import { loadWriteStages } from '../batch-rows.js';
import { failureReply, type ThreadReply } from '../threads/thread-client.js';
import { createPool } from './pg-db.js';
import { isConnectionFault } from './pg-health.js';
import { mergeRollups } from './pg-rollup-merge.js';
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
// Pipelined: a write sends the statements it needs no answer to without waiting (pg-writer.ts).
const pool = createPool(
  init.url,
  init.bounds,
  (error) => port.postMessage({ notice: 'fault', message: error.message, code: codeOf(error) }),
  true,
);
// The stages the composition root named, built in this thread (batch-rows.ts): messages wait until then.
const writer = new PgWriter(pool, await loadWriteStages(init.stages));

const damage = (what: string) => port.postMessage({ notice: 'damage', what });
/** Merge steps one after the other while keys are left over (at most ten a tick), until the thread closes. */
let merging: Promise<void> | undefined;
let failing = false;
let closing = false;
const merge = () => {
  merging ??= (async () => {
    try {
      for (let step = 0; step < 10 && !closing; step++) {
        const done = await mergeRollups(pool, damage);
        if (done.foreignSchema !== undefined) {
          // Another collector migrated the database past this one: its rows are that version's to merge.
          clearInterval(timer);
          port.postMessage({ notice: 'merge-stopped', version: done.foreignSchema });
          break;
        }
        if (!done.more) break;
      }
      if (failing) port.postMessage({ notice: 'merge-recovered' });
      failing = false;
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      const said = { message: e.message, code: codeOf(e) };
      const lost = isConnectionFault(e);
      // A lost connection is PgHealth's to check and report, once per outage, as for a write. Anything else is
      // said once per run of failures; the next tick tries again, and reads add up the unmerged rows meanwhile.
      if (lost) port.postMessage({ notice: 'fault', ...said });
      else if (!failing) port.postMessage({ notice: 'merge-failed', ...said });
      failing = !lost;
    } finally {
      merging = undefined;
    }
  })();
};
// Merging starts when the main thread says so (a serving collector whose schema is migrated), or at once in a
// thread started again after that.
let timer: NodeJS.Timeout | undefined;
const startMerging = () => {
  timer ??= setInterval(merge, init.mergeEveryMs);
};
if (init.merging) startMerging();
port.on('message', (request: WorkerRequest) => {
  const { id } = request;
  const done = (value: unknown) => port.postMessage({ id, ok: true, value } satisfies ThreadReply);
  const fail = (error: unknown) => port.postMessage(failureReply(id, error));
  switch (request.type) {
    case 'write':
      // A batch that is not whole fails its own write, not the thread.
      Promise.resolve({ sealed: request.sealed })
        .then((sealed) => writer.write(sealed))
        .then(done, fail);
      return;
    case 'merge':
      startMerging();
      done(null);
      return;
    case 'close':
      closing = true;
      clearInterval(timer);
      Promise.resolve(merging)
        .then(() => pool.end())
        .then(() => done(null), fail);
      return;
  }
});
