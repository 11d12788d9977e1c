// The main-thread side of the writer thread: requests become promises, and a thread that dies fails what was
// in flight (the ingest route answers 503) and is started again for the next write.
import type { Worker } from 'node:worker_threads';
import type { LoopThresholds } from '../detectors/retry-loops.js';
import type { WriteOutcome } from './block-writer.js';
import { startStorageWorker } from './storage-worker.js';
import type { WritePlan } from './write-plan.js';
import type { WorkerReply, WorkerRequest } from './writer-worker.js';

type Waiter = { resolve: (value: unknown) => void; reject: (error: Error) => void };
type Body =
  | { type: 'write'; plan: WritePlan }
  | { type: 'delete'; cutoffNs: bigint; maxTraces: number }
  | { type: 'close' };

export class WriterThread {
  readonly #path: string;
  readonly #synchronous: 'NORMAL' | 'FULL';
  readonly #thresholds: Partial<LoopThresholds>;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, Waiter>();

  constructor(path: string, synchronous: 'NORMAL' | 'FULL', thresholds: Partial<LoopThresholds>) {
    this.#path = path;
    this.#synchronous = synchronous;
    this.#thresholds = thresholds;
  }

  write(plan: WritePlan): Promise<WriteOutcome> {
    return this.#send({ type: 'write', plan }) as Promise<WriteOutcome>;
  }

  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number> {
    return this.#send({ type: 'delete', cutoffNs, maxTraces }) as Promise<number>;
  }

  async close(): Promise<void> {
    if (!this.#worker) return;
    await this.#send({ type: 'close' });
    await this.#worker.terminate();
    this.#worker = undefined;
  }

  #send(body: Body): Promise<unknown> {
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...body } satisfies WorkerRequest);
    });
  }

  #start(): Worker {
    const worker = startStorageWorker('writer-worker', {
      path: this.#path,
      synchronous: this.#synchronous,
      thresholds: this.#thresholds,
    });
    worker.on('message', (reply: WorkerReply) => {
      const waiter = this.#waiting.get(reply.id);
      if (!waiter) return;
      this.#waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(reply.message));
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`writer thread exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }
}
