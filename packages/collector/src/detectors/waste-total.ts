// What loop flags wasted together, each wasted call counted once: the one rule behind every sum of loop cost
// (the dashboard's overview and flags page, `report` in Markdown, JSON and JUnit, the alert webhook).
import type { Flag } from './flag.js';

/** What the loops among some flags wasted together (docs/detectors.md, "Counted once"). */
export type TotalWasted = {
  /** Distinct loops: flags that count a wasted call in common are one loop described twice. */
  loops: number;
  /** Distinct wasted calls. */
  calls: number;
  ms: number;
  resultTokens: number;
  modelTokens: number;
};

type Share = { ms: number; resultTokens: number; modelTokens: number };

/** The narrower of two shares of one call: less time, then fewer model tokens (its result tokens are its own). */
const narrower = (a: Share, b: Share): Share =>
  b.ms < a.ms || (b.ms === a.ms && b.modelTokens < a.modelTokens) ? b : a;

/**
 * A sum of loop cost over flags added one by one. A wasted call is a span a loop flag names in
 * `evidence.wasted.spans`; two flags may name the same call (an identical retry that is also an unrepaired
 * invalid input, a loop inside one trace and the same loop across its conversation), and it counts once,
 * with the narrower of its shares (each flag prices a call from the latest end of its own calls before it, so
 * a flag with more calls around it prices it narrower). Flags that share a wasted call are one loop.
 *
 * A flag stored before flags named their wasted calls has only totals: it counts whole, as a loop of its own.
 */
export class WasteSum {
  readonly #shares = new Map<string, Share>();
  /** Union-find over the wasted calls: a call's parent, up to the loop's root. */
  readonly #parent = new Map<string, string>();
  /** Flags without per-call shares, and loops that wasted no call: counted as they are. */
  readonly #whole: TotalWasted = { loops: 0, calls: 0, ms: 0, resultTokens: 0, modelTokens: 0 };

  /** Counts the loop cost of `flag` (a flag that is no loop adds nothing). */
  add(flag: Flag): void {
    const w = flag.evidence.wasted;
    if (!w) return;
    const spans = w.spans;
    if (!spans || spans.length === 0) {
      this.#whole.loops++;
      this.#whole.calls += w.calls;
      this.#whole.ms += w.ms;
      this.#whole.resultTokens += w.resultTokens;
      this.#whole.modelTokens += w.modelTokens;
      return;
    }
    const first = this.#root(spans[0]?.spanId as string);
    for (const s of spans) {
      const known = this.#shares.get(s.spanId);
      this.#shares.set(s.spanId, known ? narrower(known, s) : s);
      const root = this.#root(s.spanId);
      if (root !== first) this.#parent.set(root, first);
    }
  }

  /** What the flags added so far wasted together. */
  total(): TotalWasted {
    const t = { ...this.#whole };
    for (const [spanId, s] of this.#shares) {
      if (this.#root(spanId) === spanId) t.loops++;
      t.calls++;
      t.ms += s.ms;
      t.resultTokens += s.resultTokens;
      t.modelTokens += s.modelTokens;
    }
    return t;
  }

  #root(spanId: string): string {
    let root = spanId;
    for (let up = this.#parent.get(root); up !== undefined; up = this.#parent.get(root)) root = up;
    // Path compression: the next look-up of any call on the way is one step.
    for (let at = spanId; at !== root; ) {
      const up = this.#parent.get(at) as string;
      this.#parent.set(at, root);
      at = up;
    }
    return root;
  }
}

/** What the loop flags among `flags` wasted together, each wasted call counted once (WasteSum). */
export function totalWasted(flags: readonly Flag[]): TotalWasted {
  const sum = new WasteSum();
  for (const f of flags) sum.add(f);
  return sum.total();
}

/** What `after` adds to `before` (a new flag's part of a running total; negative when it narrows a share). */
export function wastedDelta(before: TotalWasted, after: TotalWasted): TotalWasted {
  return {
    loops: after.loops - before.loops,
    calls: after.calls - before.calls,
    ms: after.ms - before.ms,
    resultTokens: after.resultTokens - before.resultTokens,
    modelTokens: after.modelTokens - before.modelTokens,
  };
}
