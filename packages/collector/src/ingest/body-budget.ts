// Bytes of request bodies held in memory at once: as received, plus what gzip inflates them to. The write
// queue bounds decoded spans; this bounds what is in the air before decoding, so many connections sending
// large bodies (or gzip bombs) at the same time get 429 instead of growing memory with the number of
// connections. A request that is alone is always let through (up to the body limit), as the write queue lets a
// lone batch through, so a budget smaller than one large body cannot refuse it forever.

/** What one request holds. */
type Hold = { bytes: number };

export type BodyBudgetStats = { limitBytes: number; usedBytes: number; peakBytes: number };

export class BodyBudget {
  readonly limitBytes: number;
  #used = 0;
  #peak = 0;
  readonly #holds = new WeakMap<object, Hold>();

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  get stats(): BodyBudgetStats {
    return { limitBytes: this.limitBytes, usedBytes: this.#used, peakBytes: this.#peak };
  }

  /**
   * Takes `bytes` more for `request`: false, taking nothing, when they do not fit and other requests hold
   * bytes too. `force` takes them whatever the room.
   */
  take(request: object, bytes: number, force = false): boolean {
    const hold = this.#holdOf(request);
    const alone = hold.bytes === this.#used;
    if (!force && !alone && this.#used + bytes > this.limitBytes) return false;
    hold.bytes += bytes;
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
    return true;
  }

  /**
   * Takes as much of `bytes` as there is room for now (all of it when `request` is alone) and says how much:
   * for output whose size is known only afterwards (inflating), reserved before it is allocated.
   */
  takeUpTo(request: object, bytes: number): number {
    const hold = this.#holdOf(request);
    const room = hold.bytes === this.#used ? bytes : Math.max(0, this.limitBytes - this.#used);
    const taken = Math.min(bytes, room);
    this.take(request, taken, true);
    return taken;
  }

  /** Gives back `bytes` of what `request` holds (the unused part of a reservation). */
  giveBack(request: object, bytes: number): void {
    const hold = this.#holdOf(request);
    const back = Math.min(bytes, hold.bytes);
    hold.bytes -= back;
    this.#used -= back;
  }

  /** Gives back everything `request` holds; safe to call more than once. */
  release(request: object): void {
    const hold = this.#holds.get(request);
    if (!hold) return;
    this.#used -= hold.bytes;
    hold.bytes = 0;
  }

  #holdOf(request: object): Hold {
    let hold = this.#holds.get(request);
    if (!hold) {
      hold = { bytes: 0 };
      this.#holds.set(request, hold);
    }
    return hold;
  }
}
