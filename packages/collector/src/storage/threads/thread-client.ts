// The main-thread side of a storage worker thread (a writer or SQLite's reader): requests become promises, a
// failure comes back as an Error with the code it had (SQLite's SQLITE_FULL, PostgreSQL's SQLSTATE, a socket's
// ECONNRESET, …), and a thread that dies fails what was in flight and is started again for the next request.
import type { Worker } from 'node:worker_threads';

type Waiter = { resolve: (value: unknown) => void; reject: (error: Error) => void };

export type ThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string; code?: string | undefined };

/** The reply of a failed request, keeping the error's code. */
export function failureReply(id: number, error: unknown): ThreadReply {
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : undefined;
  return { id, ok: false, message: error instanceof Error ? error.message : String(error), code };
}

/** A message a thread sends of its own accord (not a reply): `{ notice, … }`. */
export type ThreadNotice = { notice: string; [key: string]: unknown };

export class ThreadClient<Body extends object> {
  readonly #start: () => Worker;
  readonly #onNotice: ((notice: ThreadNotice) => void) | undefined;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, Waiter>();

  constructor(start: () => Worker, onNotice?: (notice: ThreadNotice) => void) {
    this.#start = start;
    this.#onNotice = onNotice;
  }

  send(body: Body): Promise<unknown> {
    const worker = this.#worker ?? this.#open();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...body });
    });
  }

  /** Sends `last` (when the thread runs) and stops the thread. */
  async close(last?: Body): Promise<void> {
    if (!this.#worker) return;
    if (last) await this.send(last);
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #open(): Worker {
    const worker = this.#start();
    worker.on('message', (reply: ThreadReply | ThreadNotice) => {
      if ('notice' in reply) {
        this.#onNotice?.(reply);
        return;
      }
      const waiter = this.#waiting.get(reply.id);
      if (!waiter) return;
      this.#waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(Object.assign(new Error(reply.message), { code: reply.code }));
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`storage thread exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }
}
