// Calls waiting between two of their requests (decision 0046): a multi round-trip call whose answer asked for
// input, until its next leg; a task, between its polls. Kept by key, bounded in number, and ended as a part of
// their call (with what was seen of it) when nothing of them is seen for their idle bound, when the table is full,
// or when the process stops (`endParked`). Shared by the MCP server adapter and the proxy.

/** Why a parked call ended without its final answer. */
export type ParkedEnd = 'idle' | 'evicted' | 'stopped';

export type ParkedOptions<T> = {
  /** Most calls kept; past it the one parked longest ends as `evicted`. */
  max: number;
  /** Ends a call that will not be resumed here. Must not throw (its errors are swallowed). */
  onEnd: (value: T, why: ParkedEnd) => void;
  /** How often idle calls are looked for (an unref'd timer, running only while calls are parked). */
  sweepMs?: number;
  /** The clock (`performance.now()`), replaceable in tests. */
  now?: () => number;
};

type Entry<T> = { key: string; value: T; deadline: number };

const tables = new Set<{ endAll(why: ParkedEnd): void }>();

/** Ends every call parked in this process (a tracer provider's owner is about to shut it down). */
export function endParked(): void {
  for (const table of tables) table.endAll('stopped');
}

/** A table of parked calls; several may wait under one key (identical calls with a constant `requestState`). */
export class Parked<T> {
  readonly #o: Required<ParkedOptions<T>>;
  readonly #byKey = new Map<string, Entry<T>[]>();
  // Insertion order is parking order: the oldest entry is the first still present.
  readonly #order = new Set<Entry<T>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: ParkedOptions<T>) {
    this.#o = {
      sweepMs: 10_000,
      now: () => performance.now(),
      ...options,
    };
    tables.add(this);
  }

  get size(): number {
    return this.#order.size;
  }

  /** Parks `value` under `key` until `idleMs` pass without it being taken or touched. */
  park(key: string, value: T, idleMs: number): void {
    const entry: Entry<T> = { key, value, deadline: this.#o.now() + idleMs };
    const list = this.#byKey.get(key);
    if (list) list.push(entry);
    else this.#byKey.set(key, [entry]);
    this.#order.add(entry);
    if (this.#order.size > this.#o.max) {
      const oldest = this.#order.values().next().value;
      if (oldest) this.#end(oldest, 'evicted');
    }
    this.#timer ??= this.#startSweeping();
  }

  /** The first call parked under `key`, removed from the table; undefined when none waits. */
  take(key: string): T | undefined {
    const list = this.#byKey.get(key);
    const entry = list?.[0];
    if (!entry) return undefined;
    this.#remove(entry);
    return entry.value;
  }

  /** The first call parked under `key`, left parked with a new idle deadline. */
  touch(key: string, idleMs: number): T | undefined {
    const entry = this.#byKey.get(key)?.[0];
    if (!entry) return undefined;
    entry.deadline = this.#o.now() + idleMs;
    return entry.value;
  }

  /** Ends every parked call. */
  endAll(why: ParkedEnd): void {
    for (const entry of [...this.#order]) this.#end(entry, why);
  }

  #end(entry: Entry<T>, why: ParkedEnd): void {
    this.#remove(entry);
    try {
      this.#o.onEnd(entry.value, why);
    } catch {
      // Ending a span never breaks the caller (the span's own guards log once).
    }
  }

  #remove(entry: Entry<T>): void {
    this.#order.delete(entry);
    const list = this.#byKey.get(entry.key);
    if (list) {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0) this.#byKey.delete(entry.key);
    }
    if (this.#order.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #startSweeping(): ReturnType<typeof setInterval> {
    const timer = setInterval(() => this.sweep(), this.#o.sweepMs);
    timer.unref();
    return timer;
  }

  /** Ends the calls whose idle deadline has passed (run by the timer; callable by tests). */
  sweep(): void {
    const now = this.#o.now();
    for (const entry of [...this.#order]) if (entry.deadline <= now) this.#end(entry, 'idle');
  }
}
