// The collector's memory limit (`--memory-limit-mib`), after the OpenTelemetry Collector's memory_limiter: the
// process's resident set is read on an interval; past the soft limit (the limit less a spike allowance) the
// receivers refuse new requests before reading them (429 / RESOURCE_EXHAUSTED with a retry hint) and a full
// garbage collection is forced, at most once per interval, until the resident set is back under it. What was
// acknowledged is committed already: refusing loses nothing. docs/reliability.md states the bounds.

export type MemoryLimiterOptions = {
  /** The hard limit: the resident set the process should never pass. */
  limitBytes: number;
  /** How much the resident set may grow between two checks: the soft limit is the limit less this. */
  spikeBytes?: number;
  /** How often the resident set is read while nothing asks (default 100 ms). */
  checkIntervalMs?: number;
  /**
   * Whether no request is being worked on. With none, one is let in whatever the reading: refusing then would
   * refuse for ever when the process alone is over the soft limit, since only work in flight can go away.
   */
  idle: () => boolean;
  /** The resident set in bytes (default: this process's). */
  readRss?: () => number;
  /** Forces a full garbage collection, when the runtime lets us (forced-gc.ts). */
  collectGarbage?: (() => void) | undefined;
  /**
   * Bytes a full collection of this thread could give back: its heap in use and its array buffers, garbage
   * included (default: Node's reading of both).
   */
  heapBytes?: () => number;
  /** Told when a period of refusals begins (the collector logs it, at most once a minute). */
  onLimited?: (reading: MemoryReading) => void;
  /** Runs on every request's arrival and every interval: the HTTP thread's young generation cap (young-generation.ts). */
  everyCheck?: () => void;
};

export type MemoryReading = {
  rssBytes: number;
  softLimitBytes: number;
  limitBytes: number;
  /** True while the receivers refuse. */
  limited: boolean;
};

/** A fresh reading is taken on admission when the last is older than this: the timer can lag under load. */
const FRESH_MS = 10;
/**
 * Forced collections at most one per this many ms, over the soft and over the hard limit. A full collection of
 * the HTTP thread's heap under a flood took 50-200 ms on a loaded 2-core machine: forced at every check it left
 * the thread no time for anything else.
 */
const SOFT_GC_INTERVAL_MS = 1_000;
const HARD_GC_INTERVAL_MS = 250;
/**
 * A collection is forced only once the heap and its array buffers have grown by this much since the last: when
 * what is over the limit is not this thread's garbage (another thread's heap, native memory, a limit below the
 * process at rest), forcing collections would only cost time.
 */
const GC_AFTER_GROWTH_BYTES = 16 * 1024 * 1024;

/**
 * This thread's heap in use and its array buffers. The buffers count because a full collection frees them too:
 * under a SQLite flood the HTTP thread's array buffers grew from 36 to 64 MiB in 300 ms (request-body chunks,
 * refused ones included, dead but not yet collected) while its heap grew by 3, and the resident set passed the
 * limit until V8 collected on its own (docs/decisions/0072-malloc-keeps-the-flood.md).
 */
export function heapAndBuffers(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

export class MemoryLimiter {
  readonly limitBytes: number;
  readonly softLimitBytes: number;
  readonly #o: MemoryLimiterOptions;
  readonly #readRss: () => number;
  readonly #interval: number;
  #rss = 0;
  #readAt = 0;
  #limited = false;
  #lastGcAt = 0;
  #heapAfterGc = 0;
  readonly #heapBytes: () => number;
  #forcedGcs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: MemoryLimiterOptions) {
    this.#o = o;
    this.limitBytes = o.limitBytes;
    // The OpenTelemetry Collector's default allowance: a fifth of the limit.
    this.softLimitBytes = o.limitBytes - (o.spikeBytes ?? Math.round(o.limitBytes / 5));
    this.#readRss = o.readRss ?? (() => process.memoryUsage.rss());
    this.#interval = o.checkIntervalMs ?? 100;
    this.#heapBytes = o.heapBytes ?? heapAndBuffers;
    this.#check();
  }

  /** Starts the interval checks; they keep nothing alive (the timer is unref'd). */
  start(): this {
    this.#timer ??= setInterval(() => this.#check(), this.#interval).unref();
    return this;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Whether a new request may be read now: false past the soft limit while other requests are in flight. */
  admit(): boolean {
    if (Date.now() - this.#readAt >= FRESH_MS) this.#check();
    else this.#o.everyCheck?.();
    return !this.#limited || this.#o.idle();
  }

  get reading(): MemoryReading {
    return {
      rssBytes: this.#rss,
      softLimitBytes: this.softLimitBytes,
      limitBytes: this.limitBytes,
      limited: this.#limited,
    };
  }

  /** Full collections forced so far. */
  get forcedGcs(): number {
    return this.#forcedGcs;
  }

  #check(): void {
    const now = Date.now();
    this.#rss = this.#readRss();
    this.#readAt = now;
    const wasLimited = this.#limited;
    this.#limited = this.#rss > this.softLimitBytes;
    if (this.#limited && !wasLimited) this.#o.onLimited?.(this.reading);
    this.#o.everyCheck?.();
    this.#maybeCollect(now);
  }

  /**
   * Past the soft limit, and also below it once this thread's heap and buffers hold a fifth of the limit: V8
   * lets garbage pile up to several times what is live before it collects the old generation (up to 100 MiB of
   * it under a flood, for 17 MiB live), which would take the resident set to the soft limit with garbage alone.
   */
  #maybeCollect(now: number): void {
    const heap = this.#heapBytes();
    // V8 frees dead buffers on a thread of its own after a full collection, so the reading taken right after one
    // can still count them (35-39 of 40 MiB dropped, 3 MiB 100 ms later): the lowest reading since is the base.
    if (heap < this.#heapAfterGc) this.#heapAfterGc = heap;
    const heapOver = heap > this.limitBytes / 5;
    if (!this.#limited && !heapOver) return;
    // V8 collects when its own heuristics say so, which can be long after the resident set passed our limit;
    // most of what is over it under a flood is garbage, which a forced collection gives back within ~100 ms.
    const gcEvery = this.#rss > this.limitBytes ? HARD_GC_INTERVAL_MS : SOFT_GC_INTERVAL_MS;
    if (!this.#o.collectGarbage || now - this.#lastGcAt < gcEvery) return;
    if (heap < this.#heapAfterGc + GC_AFTER_GROWTH_BYTES) return;
    this.#lastGcAt = now;
    this.#forcedGcs++;
    this.#o.collectGarbage();
    this.#heapAfterGc = this.#heapBytes();
  }
}
