// How many calls a run key has had since its tool's latest run-ending call, per conversation, kept beside the
// key filter (detectors/loops: a run detector's loops are one tool's calls in a row, and some calls end every
// run, as a success ends a churn). The filter's rungs count a key's calls ever; a tool that fails now and then
// between successes climbs them all, and had its calls re-read at every failure after the third. This count
// resets at a run-ending call, so such a tool is not re-read.
//
// It is an upper bound, whatever order calls arrive in: `end` is the latest start of a run-ending call seen;
// a key counts its calls that start after it; a run-ending call later than every counted call resets the count
// (and only then moves `end`), one earlier than some of them keeps it (they may follow it); a call that starts
// before `end` is not counted and asks for a re-read (what came between is not known here). A key's count
// exists only from its first call in the conversation on (the filter says it was never seen): a key seen
// before, or one the table has no room for, falls back to the filter's rungs. Nothing here can say "no loop"
// where a loop may be.
import type { KeyHash } from './key-filter.js';

const NONE = -(2n ** 63n);
/** Room for this many runs and run keys per conversation; beyond it, keys fall back to the filter. */
const MAX_RUNS = 64;
const MAX_KEYS = 256;

type KeyCount = { n: number; lastNs: bigint };
type Run = { endNs: bigint; keys: Map<number, KeyCount> };

/** A conversation's run counts, by a 53-bit hash of each run and key. */
export type RunStreaks = { runs: Map<number, Run>; keys: number };

export const emptyStreaks = (): RunStreaks => ({ runs: new Map(), keys: 0 });

/**
 * A run's or key's number: its first hash and 21 bits of its second, exact as a double. Two runs sharing one
 * would share their ends: at 53 bits, and 64 runs per conversation, about one conversation in 10^12.
 */
const HIGH = 2 ** 32;
const idOf = (h: KeyHash) => h.a + (h.b & 0x1fffff) * HIGH;

/**
 * A call that ends run `run`, starting at `startNs`; true when that changed the counts. The end moves only where
 * it resets a count: an end kept earlier than it could be only lets later calls count (an upper bound still),
 * and a conversation's counts are then written back only when a streak of failures is broken.
 */
export function endRun(s: RunStreaks, run: KeyHash, startNs: bigint): boolean {
  const r = s.runs.get(idOf(run));
  if (!r || startNs <= r.endNs) return false;
  let reset = false;
  for (const k of r.keys.values())
    if (k.n > 0 && k.lastNs < startNs) {
      k.n = 0;
      reset = true;
    }
  if (reset) r.endNs = startNs;
  return reset;
}

/**
 * A call of run key `key` in run `run`, starting at `startNs`: how many of the run's calls under the key it
 * makes since the run last ended (this one included), Infinity when it starts before that end, or null when the
 * key has no count (`first`: the conversation never had the key, so a count may start here).
 */
export function countRunKey(
  s: RunStreaks,
  run: KeyHash,
  key: KeyHash,
  startNs: bigint,
  first: boolean,
): number | null {
  const runId = idOf(run);
  const keyId = idOf(key);
  let r = s.runs.get(runId);
  let k = r?.keys.get(keyId);
  if (!r || !k) {
    if (!first || s.keys >= MAX_KEYS) return null;
    if (!r) {
      if (s.runs.size >= MAX_RUNS) return null;
      r = { endNs: NONE, keys: new Map() };
      s.runs.set(runId, r);
    }
    k = { n: 0, lastNs: NONE };
    r.keys.set(keyId, k);
    s.keys++;
  }
  if (startNs <= r.endNs) return Number.POSITIVE_INFINITY;
  k.n++;
  if (startNs > k.lastNs) k.lastNs = startNs;
  return k.n;
}

// Stored after the filter's bits: u16 runs; per run its hash (u32, u32), end (i64) and u16 keys; per key its
// hash (u32, u32), count (u32) and latest start (i64). Little-endian.
const RUN_BYTES = 4 + 4 + 8 + 2;
const KEY_BYTES = 4 + 4 + 4 + 8;

export function streaksBytes(s: RunStreaks): Uint8Array {
  const out = new Uint8Array(2 + s.runs.size * RUN_BYTES + s.keys * KEY_BYTES);
  const v = new DataView(out.buffer);
  let at = 0;
  const hash = (id: number) => {
    v.setUint32(at, id % HIGH, true);
    v.setUint32(at + 4, Math.floor(id / HIGH), true);
    at += 8;
  };
  v.setUint16(at, s.runs.size, true);
  at += 2;
  for (const [id, r] of s.runs) {
    hash(id);
    v.setBigInt64(at, r.endNs, true);
    v.setUint16(at + 8, r.keys.size, true);
    at += 10;
    for (const [keyId, k] of r.keys) {
      hash(keyId);
      v.setUint32(at, Math.min(k.n, 0xffffffff), true);
      v.setBigInt64(at + 4, k.lastNs, true);
      at += 12;
    }
  }
  return out;
}

/** The counts stored after a filter; a missing or damaged table is empty (its keys fall back to the filter). */
export function streaksOf(bytes: Uint8Array): RunStreaks {
  const s = emptyStreaks();
  if (bytes.length < 2) return s;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const fits = (n: number) => at + n <= bytes.length;
  const hash = () => {
    const id = v.getUint32(at, true) + (v.getUint32(at + 4, true) & 0x1fffff) * HIGH;
    at += 8;
    return id;
  };
  const runs = v.getUint16(at, true);
  at += 2;
  for (let i = 0; i < runs; i++) {
    if (!fits(RUN_BYTES) || s.runs.size >= MAX_RUNS) return emptyStreaks();
    const id = hash();
    const run: Run = { endNs: v.getBigInt64(at, true), keys: new Map() };
    const keys = v.getUint16(at + 8, true);
    at += 10;
    for (let j = 0; j < keys; j++) {
      if (!fits(KEY_BYTES) || s.keys >= MAX_KEYS) return emptyStreaks();
      const keyId = hash();
      run.keys.set(keyId, { n: v.getUint32(at, true), lastNs: v.getBigInt64(at + 4, true) });
      at += 12;
      s.keys++;
    }
    s.runs.set(id, run);
  }
  return at === bytes.length ? s : emptyStreaks();
}
