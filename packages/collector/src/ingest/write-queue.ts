// The single writer: a request's spans go through the process stage as they are queued, so only their compact
// batch waits (the decoded spans are let go with the request's turn; sealed outside the heap for a store that
// takes it, queue-stages.ts); each write takes every batch queued meanwhile (up to a span cap), joined, as one
// transaction, so batches grow by themselves under load. Writes in flight are bounded (storage says how many
// are worth it: one committing while the next ones wait on the writer thread, or several connections, and
// whether a write less than whole should wait for the one such in flight); each
// request learns when its spans are committed. The queue is bounded: overload becomes a 429 with Retry-After
// instead of unbounded memory.
import type { NormalizedSpan } from '../otlp/model.js';
import type { WriteInput, WriteOutcome } from '../storage/contract.js';

export type Enqueued =
  | { ok: true; committed: Promise<void> }
  | { ok: false; reason: 'full' | 'closed' };

/** What the queue asks of the process stage: a request's spans as a batch, and several batches as one write. */
export type BatchStages<B> = {
  process(spans: NormalizedSpan[]): B;
  merge(batches: B[]): B;
};

/** Where batches are committed: storage's writer side. */
export type BatchSink<B> = { write(batch: B): Promise<WriteOutcome> };

type Pending<B> = {
  /** Null once handed to storage, which holds it from then on. */
  batch: B | null;
  spans: number;
  resolve: () => void;
  reject: (error: unknown) => void;
};
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

export type WriteQueueOptions<B> = {
  stages: BatchStages<B>;
  maxPendingSpans: number;
  maxBatchSpans: number;
  /** Writes handed to storage and not yet committed (default 2: one committing, one being prepared). */
  maxInFlight?: number;
  /**
   * At most one write of fewer than maxBatchSpans spans in flight: beside it, what is queued waits until it
   * commits or a whole write's spans are queued (Storage.fillsWritesFirst says for which stores).
   */
  fillFirst?: boolean;
  observer?: WriteObserver;
};

export class WriteQueue<B = WriteInput> {
  readonly #sink: BatchSink<B>;
  readonly #opts: WriteQueueOptions<B>;
  #pending: Pending<B>[] = [];
  #jobs: Job[] = [];
  #pendingSpans = 0;
  /** Of those, the spans not yet handed to storage. */
  #queuedSpans = 0;
  #running = false;
  #closed = false;
  #idle: (() => void)[] = [];
  /**
   * Wakes a drain that waits on a commit with nothing queued (or, filling writes first, less than a whole write
   * beside a partial one), so new spans can go out as another write.
   */
  #wake: (() => void) | undefined;

  constructor(sink: BatchSink<NoInfer<B>>, opts: WriteQueueOptions<B>) {
    this.#sink = sink;
    this.#opts = opts;
  }

  get pendingSpans(): number {
    return this.#pendingSpans;
  }

  /** Whether any batch but a lone one would be refused now: receivers refuse before reading, not after decoding. */
  get full(): boolean {
    return this.#pendingSpans >= this.#opts.maxPendingSpans;
  }

  /**
   * Processes spans into a batch and queues it for the next commit, or refuses (without processing them) when
   * the queue is full or closing.
   */
  enqueue(spans: NormalizedSpan[]): Enqueued {
    if (this.#closed) return { ok: false, reason: 'closed' };
    const count = spans.length;
    if (this.#pendingSpans > 0 && this.#pendingSpans + count > this.#opts.maxPendingSpans) {
      return { ok: false, reason: 'full' };
    }
    const batch = this.#opts.stages.process(spans);
    this.#pendingSpans += count;
    this.#queuedSpans += count;
    const committed = new Promise<void>((resolve, reject) => {
      this.#pending.push({ batch, spans: count, resolve, reject });
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
    /** Those of the writes in flight that went out with fewer than maxBatchSpans spans. */
    const partial = new Set<Promise<void>>();
    const maxInFlight = Math.max(1, this.#opts.maxInFlight ?? 2);
    for (;;) {
      // Filling writes first (a store's choice, decision 0086): beside a write that went out less than whole,
      // what is queued waits for its commit unless it makes a whole write. Whole writes, and the first partial
      // one, go out as slots free: light traffic waits on no more than one write, and a slow whole write holds
      // nothing back. A retention step queued meanwhile runs once every write in flight has committed, so
      // waiting for the partial one first changes nothing for it.
      const toFill =
        this.#opts.fillFirst === true &&
        partial.size > 0 &&
        this.#queuedSpans < this.#opts.maxBatchSpans;
      if ((this.#pending.length === 0 && this.#jobs.length === 0) || toFill) {
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
      const batch: Pending<B>[] = [];
      let count = 0;
      while (
        this.#pending.length > 0 &&
        (count === 0 || count + (this.#pending[0]?.spans ?? 0) <= this.#opts.maxBatchSpans)
      ) {
        const next = this.#pending.shift() as Pending<B>;
        batch.push(next);
        count += next.spans;
      }
      this.#queuedSpans -= count;
      if (batch.length === 0) continue;
      const write = this.#start(batch, count).finally(() => {
        inFlight.delete(write);
        partial.delete(write);
      });
      inFlight.add(write);
      if (count < this.#opts.maxBatchSpans) partial.add(write);
      if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    }
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /**
   * Hands the queued batches to storage as one and resolves once their requests are answered. A plain method,
   * not part of #drain: an async frame that awaits would keep the last write's batches alive.
   */
  #start(pending: Pending<B>[], count: number): Promise<void> {
    const started = process.hrtime.bigint();
    const batches: B[] = [];
    for (const p of pending) {
      if (p.batch !== null) batches.push(p.batch);
      // Storage holds the write from here: a request waiting for its commit keeps nothing of it alive (under
      // load many wait, and what they keep alive is what every young-generation collection copies).
      p.batch = null;
    }
    let writing: Promise<WriteOutcome>;
    try {
      writing = this.#sink.write(this.#opts.stages.merge(batches));
    } catch (error) {
      writing = Promise.reject(error);
    }
    return this.#settle(writing, started, pending, count);
  }

  async #settle(
    writing: Promise<WriteOutcome>,
    started: bigint,
    batch: Pending<B>[],
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
