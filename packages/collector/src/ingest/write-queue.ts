// The single writer: requests queue their spans; each write takes everything queued meanwhile (up to a batch
// cap) as one transaction, so batches grow by themselves under load. Two writes may be in flight: while the
// writer thread commits one, this thread prepares the next (planWrite and the copy to the thread), so neither
// waits for the other; the writer applies them in order. Each request learns when its spans are committed.
// The queue is bounded: overload becomes a 429 with Retry-After instead of unbounded memory.
import type { NormalizedSpan } from '../otlp/model.js';
import type { Storage, WriteOutcome } from '../storage/contract.js';

export type Enqueued =
  | { ok: true; committed: Promise<void> }
  | { ok: false; reason: 'full' | 'closed' };

type Pending = { spans: NormalizedSpan[]; resolve: () => void; reject: (error: unknown) => void };
const NO_SPANS: NormalizedSpan[] = [];
type Job = {
  run: () => Promise<void> | void;
  resolve: () => void;
  reject: (error: unknown) => void;
};

/** Told of every storage write (a batch): for metrics, and to log each failure once with its cause. */
export type WriteObserver = {
  committed?(outcome: WriteOutcome, seconds: number): void;
  failed?(error: unknown, spans: number, requests: number): void;
};

export type WriteQueueOptions = {
  maxPendingSpans: number;
  maxBatchSpans: number;
  /** Writes handed to storage and not yet committed (default 2: one committing, one being prepared). */
  maxInFlight?: number;
  observer?: WriteObserver;
};

export class WriteQueue {
  readonly #storage: Storage;
  readonly #opts: WriteQueueOptions;
  #pending: Pending[] = [];
  #jobs: Job[] = [];
  #pendingSpans = 0;
  #running = false;
  #closed = false;
  #idle: (() => void)[] = [];
  /** Wakes a drain that waits on a commit with nothing queued, so new spans can go out as the second write. */
  #wake: (() => void) | undefined;

  constructor(storage: Storage, opts: WriteQueueOptions) {
    this.#storage = storage;
    this.#opts = opts;
  }

  get pendingSpans(): number {
    return this.#pendingSpans;
  }

  /** Whether any batch but a lone one would be refused now: receivers refuse before reading, not after decoding. */
  get full(): boolean {
    return this.#pendingSpans >= this.#opts.maxPendingSpans;
  }

  /** Queues spans for the next commit, or refuses when the queue is full or closing. */
  enqueue(spans: NormalizedSpan[]): Enqueued {
    if (this.#closed) return { ok: false, reason: 'closed' };
    if (this.#pendingSpans > 0 && this.#pendingSpans + spans.length > this.#opts.maxPendingSpans) {
      return { ok: false, reason: 'full' };
    }
    this.#pendingSpans += spans.length;
    const committed = new Promise<void>((resolve, reject) => {
      this.#pending.push({ spans, resolve, reject });
    });
    this.#schedule();
    return { ok: true, committed };
  }

  /** Runs `run` on the writer between batches (retention steps), so writes never interleave. */
  exclusive(run: () => Promise<void> | void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#jobs.push({ run, resolve, reject });
      this.#schedule();
    });
  }

  /** Stops taking new spans and resolves once everything already accepted is committed. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pending.length === 0 && this.#jobs.length === 0 && !this.#running) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #schedule(): void {
    if (this.#running) {
      this.#wake?.();
      return;
    }
    this.#running = true;
    // setImmediate lets requests that arrive in the same turn join the first transaction.
    setImmediate(() => {
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const maxInFlight = Math.max(1, this.#opts.maxInFlight ?? 2);
    for (;;) {
      if (this.#pending.length === 0 && this.#jobs.length === 0) {
        if (inFlight.size === 0) break;
        const woken = new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        await Promise.race([...inFlight, woken]);
        this.#wake = undefined;
        continue;
      }
      const job = this.#jobs.shift();
      if (job) {
        // Retention steps run alone: after every write handed out before them has committed.
        await Promise.all(inFlight);
        try {
          await job.run();
          job.resolve();
        } catch (error) {
          job.reject(error);
        }
      }
      const batch: Pending[] = [];
      let count = 0;
      while (
        this.#pending.length > 0 &&
        (count === 0 || count + (this.#pending[0]?.spans.length ?? 0) <= this.#opts.maxBatchSpans)
      ) {
        const next = this.#pending.shift() as Pending;
        batch.push(next);
        count += next.spans.length;
      }
      if (batch.length === 0) continue;
      const write = this.#start(batch, count).finally(() => inFlight.delete(write));
      inFlight.add(write);
      if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    }
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /**
   * Hands a batch's spans to storage and resolves once its requests are answered. A plain method, not part of
   * #drain: an async frame that awaits would keep the last batch's spans alive.
   */
  #start(batch: Pending[], count: number): Promise<void> {
    const spans = batch.length === 1 ? (batch[0] as Pending).spans : batch.flatMap((p) => p.spans);
    // From here storage holds the spans, and lets them go once its plan is made: a request waiting for its
    // commit no longer keeps them alive, nor does this queue (under load, many batches are in flight, and
    // what they keep alive is what every young-generation collection copies).
    for (const p of batch) p.spans = NO_SPANS;
    const started = process.hrtime.bigint();
    let writing: Promise<WriteOutcome>;
    try {
      writing = this.#storage.write(spans);
    } catch (error) {
      writing = Promise.reject(error);
    }
    return this.#settle(writing, started, batch, count);
  }

  async #settle(
    writing: Promise<WriteOutcome>,
    started: bigint,
    batch: Pending[],
    count: number,
  ): Promise<void> {
    try {
      const outcome = await writing;
      this.#opts.observer?.committed?.(outcome, Number(process.hrtime.bigint() - started) / 1e9);
      for (const p of batch) p.resolve();
    } catch (error) {
      this.#opts.observer?.failed?.(error, count, batch.length);
      for (const p of batch) p.reject(error);
    } finally {
      this.#pendingSpans -= count;
    }
  }
}
