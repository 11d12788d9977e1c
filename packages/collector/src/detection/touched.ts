// A batch's new calls as the stage counts them (scopes.ts): each call's trace, conversation, tool and start, and
// its trigger keys hashed, held in columns. A batch keeps these from before it takes its locks until its checks
// are made, with up to 16 batches waiting on the database at once: an object per call and per key (the stage
// allocated about 900 bytes a call for them) was what the young-generation collector copied at every scavenge
// meanwhile, and a column holds a key in 21 bytes, outside the heap it scans.
import { CallKeys, type TriggerKey } from '../detectors/loops/index.js';
import { keyHash } from './key-filter.js';
import { streakIdOf } from './run-streaks.js';

/** No run: the key is not a run detector's. */
export const NO_RUN = -1;

export class TouchedCalls {
  length = 0;
  /** Made at the capacity asked for: pushed call by call, they were allocated about twice over as they grew. */
  readonly traceId: string[];
  readonly conversationId: (string | null)[];
  readonly tool: string[];
  /** Each call's start in nanoseconds, as a double (run-streaks.ts rounds times so, and says why that is safe). */
  startNs: Float64Array;
  /** Call i's keys are at keyAt[i] up to keyAt[i + 1] of the key columns; its ended runs likewise at endAt. */
  keyAt: Int32Array;
  endAt: Int32Array;
  /** Per key: its two hashes (key-filter.ts keyHash), the earlier calls that make it worth a re-read, whether
   * its detector reads the whole scope, and the streak id of the run it counts in (NO_RUN for none). */
  hashA: Uint32Array;
  hashB: Uint32Array;
  prior: Int32Array;
  wholeScope: Uint8Array;
  run: Float64Array;
  /** Per ended run: its streak id. */
  ends: Float64Array;
  #keys = 0;
  #ends = 0;
  /** A run is one detector's and one tool's: few per batch, each hashed once. */
  readonly #runIds = new Map<string, number>();

  constructor(capacity = 16) {
    const n = Math.max(1, capacity);
    this.traceId = new Array(n);
    this.conversationId = new Array(n);
    this.tool = new Array(n);
    this.startNs = new Float64Array(n);
    this.keyAt = new Int32Array(n + 1);
    this.endAt = new Int32Array(n + 1);
    // Most calls have one or two keys, and end at most a run or two.
    const k = 2 * n;
    this.hashA = new Uint32Array(k);
    this.hashB = new Uint32Array(k);
    this.prior = new Int32Array(k);
    this.wholeScope = new Uint8Array(k);
    this.run = new Float64Array(k);
    this.ends = new Float64Array(n);
  }

  /** Adds a call with its trigger keys and the runs it ends (detectors/loops callKeys). */
  add(
    traceId: string,
    conversationId: string | null,
    tool: string,
    startNs: bigint,
    keys: CallKeys,
  ): void {
    const i = this.length;
    if (i + 1 >= this.keyAt.length) this.#growCalls();
    this.traceId[i] = traceId;
    this.conversationId[i] = conversationId;
    this.tool[i] = tool;
    this.startNs[i] = Number(startNs);
    const n = keys.length;
    if (this.#keys + n > this.hashA.length) this.#growKeys(this.#keys + n);
    for (let j = 0; j < n; j++) {
      const h = keyHash(keys.key[j] as string);
      const at = this.#keys++;
      this.hashA[at] = h.a;
      this.hashB[at] = h.b;
      this.prior[at] = keys.prior[j] as number;
      this.wholeScope[at] = keys.wholeScope[j] ? 1 : 0;
      const run = keys.run[j];
      this.run[at] = run === null || run === undefined ? NO_RUN : this.#runId(run);
    }
    const ends = keys.ends;
    if (this.#ends + ends > this.ends.length)
      this.ends = grown(this.ends, Math.max(this.#ends + ends, 2 * this.ends.length));
    for (let j = 0; j < ends; j++) this.ends[this.#ends++] = this.#runId(keys.ended[j] as string);
    this.length = i + 1;
    this.keyAt[i + 1] = this.#keys;
    this.endAt[i + 1] = this.#ends;
  }

  #runId(run: string): number {
    let id = this.#runIds.get(run);
    if (id === undefined) {
      id = streakIdOf(keyHash(run));
      this.#runIds.set(run, id);
    }
    return id;
  }

  #growCalls(): void {
    const n = 2 * this.startNs.length;
    this.startNs = grown(this.startNs, n);
    this.keyAt = grown(this.keyAt, n + 1);
    this.endAt = grown(this.endAt, n + 1);
  }

  #growKeys(need: number): void {
    const n = Math.max(need, 2 * this.hashA.length);
    this.hashA = grown(this.hashA, n);
    this.hashB = grown(this.hashB, n);
    this.prior = grown(this.prior, n);
    this.wholeScope = grown(this.wholeScope, n);
    this.run = grown(this.run, n);
  }
}

type Column = Float64Array | Int32Array | Uint32Array | Uint8Array;
function grown<T extends Column>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** A call as tests give it: its keys and ended runs as the detectors name them. */
export type TouchedCall = {
  traceId: string;
  conversationId: string | null;
  tool: string;
  startNs: bigint;
  keys: readonly TriggerKey[];
  ends: readonly string[];
};

/** The columns of some calls. */
export function touchedCalls(calls: readonly TouchedCall[]): TouchedCalls {
  const t = new TouchedCalls(calls.length);
  for (const c of calls)
    t.add(c.traceId, c.conversationId, c.tool, c.startNs, callKeysOf(c.keys, c.ends));
  return t;
}

/** Keys and ended runs as the detectors name them, as callKeys gives them. */
export function callKeysOf(keys: readonly TriggerKey[], ends: readonly string[]): CallKeys {
  const out = new CallKeys();
  keys.forEach((k, j) => {
    out.key[j] = k.key;
    out.wholeScope[j] = k.wholeScope;
    out.prior[j] = k.prior;
    out.run[j] = k.run ?? null;
  });
  out.length = keys.length;
  ends.forEach((e, j) => {
    out.ended[j] = e;
  });
  out.ends = ends.length;
  return out;
}
