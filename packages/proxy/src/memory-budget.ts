// The HTTP proxy's memory bound: every message byte it holds (a request body read before it is forwarded, an
// answer or a Server-Sent Event kept until it can be observed) is taken from one budget for the process, and no
// one message may take more than its own bound. What cannot be held is refused (a body) or forwarded unread (an
// answer), never buffered without bound.

/** Bytes held over all messages of one proxy process. */
export class ByteBudget {
  readonly limit: number;
  #used = 0;

  constructor(limitBytes: number) {
    this.limit = limitBytes;
  }

  get used(): number {
    return this.#used;
  }

  /** Takes `n` bytes if they fit, else nothing. */
  take(n: number): boolean {
    if (this.#used + n > this.limit) return false;
    this.#used += n;
    return true;
  }

  give(n: number): void {
    this.#used = Math.max(0, this.#used - n);
  }
}

/** Why a message could not be held: over its own bound, or over what the whole process may hold. */
export type HoldRefusal = 'too_large' | 'over_budget';

/** What one message holds: grows as its bytes arrive, within `maxBytes` and the budget, and is given back once. */
export class Holding {
  readonly #budget: ByteBudget;
  readonly #max: number;
  #bytes = 0;

  constructor(budget: ByteBudget, maxBytes: number) {
    this.#budget = budget;
    this.#max = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Takes `n` more bytes; on a refusal nothing is taken (what is held stays held until `release`). */
  add(n: number): HoldRefusal | undefined {
    return this.resize(this.#bytes + n);
  }

  /** Holds `total` bytes from now on (more or fewer than before); on a refusal nothing changes. */
  resize(total: number): HoldRefusal | undefined {
    if (total > this.#max) return 'too_large';
    const more = total - this.#bytes;
    if (more > 0 && !this.#budget.take(more)) return 'over_budget';
    if (more < 0) this.#budget.give(-more);
    this.#bytes = total;
    return undefined;
  }

  /** Gives back everything held. */
  release(): void {
    this.#budget.give(this.#bytes);
    this.#bytes = 0;
  }
}

/** Holdings of one budget, each message bounded to `maxMessageBytes`. */
export type Holdings = { budget: ByteBudget; hold(): Holding; maxMessageBytes: number };

export function holdings(limitBytes: number, maxMessageBytes: number): Holdings {
  const budget = new ByteBudget(limitBytes);
  return { budget, maxMessageBytes, hold: () => new Holding(budget, maxMessageBytes) };
}
