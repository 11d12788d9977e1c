// The main-thread side of a storage worker thread (a writer or SQLite's reader): requests become promises, a
// failure comes back as an Error with the code it had (SQLite's SQLITE_FULL, PostgreSQL's SQLSTATE, a socket's
// ECONNRESET, …), and a thread that dies fails what was in flight, is logged once with its cause, and is started
// again for the next request.
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

/** What a client's owner hears of its thread: its notices, and its death (not a close). */
export type ThreadHooks = {
  onNotice?: (notice: ThreadNotice) => void;
  onDeath?: (error: Error) => void;
};

/** One started thread and the requests it owes answers to: a thread's end fails only its own. */
type Running = { worker: Worker; waiting: Map<number, Waiter>; closing: boolean };

export class ThreadClient<Body extends object> {
  readonly #start: () => Worker;
  readonly #hooks: ThreadHooks;
  #running: Running | undefined;
  #nextId = 1;

  constructor(start: () => Worker, hooks: ThreadHooks = {}) {
    this.#start = start;
    this.#hooks = hooks;
  }

  /** Starts the thread now rather than with the first request (for a thread with work of its own). */
  start(): void {
    this.#running ??= this.#open();
  }

  /** `transfer`: buffers of `body` the thread takes over, gone from this one (postMessage's transfer list). */
  send(body: Body, transfer: readonly ArrayBuffer[] = []): Promise<unknown> {
    const running = this.#running ?? this.#open();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      running.waiting.set(id, { resolve, reject });
      running.worker.postMessage({ id, ...body }, transfer);
    });
  }

  /** Sends `last` (when the thread runs) and stops the thread, whether or not `last` succeeded. */
  async close(last?: Body): Promise<void> {
    const running = this.#running;
    if (!running) return;
    try {
      if (last) await this.send(last);
    } finally {
      running.closing = true;
      if (this.#running === running) this.#running = undefined;
      await running.worker.terminate();
    }
  }

  #open(): Running {
    const worker = this.#start();
    const running: Running = { worker, waiting: new Map(), closing: false };
    worker.on('message', (reply: ThreadReply | ThreadNotice) => {
      if ('notice' in reply) {
        this.#hooks.onNotice?.(reply);
        return;
      }
      const waiter = running.waiting.get(reply.id);
      if (!waiter) return;
      running.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(Object.assign(new Error(reply.message), { code: reply.code }));
    });
    // 'error' (an uncaught exception, a heap limit reached) comes before 'exit': the first says why.
    let ended = false;
    const end = (error: Error) => {
      if (this.#running === running) this.#running = undefined;
      for (const waiter of running.waiting.values()) waiter.reject(error);
      running.waiting.clear();
      if (ended || running.closing) return;
      ended = true;
      // Once per death, with its cause, as a process warning: `serve` logs those as JSON lines
      // (ops/logger.ts), other commands print them on stderr. With nothing in flight (a thread's own timer, as
      // PostgreSQL's merge step) it would otherwise go unseen.
      const code = Reflect.get(error, 'code');
      process.emitWarning(`toolscope: a storage thread stopped: ${error.message}`, {
        ...(typeof code === 'string' ? { code } : {}),
      });
      this.#hooks.onDeath?.(error);
    };
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`storage thread exited with code ${code}`)));
    this.#running = running;
    return running;
  }
}
