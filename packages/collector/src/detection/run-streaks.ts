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

/**
 * Times are kept as doubles, each call's start rounded to the nearest one (Number of its nanoseconds): rounding
 * is monotonic, so a true order stays an order or becomes a tie, and every tie takes the careful branch (no reset,
 * or a re-read), so the counts stay upper bounds; doubles spare the BigInt each stored time would cost to read.
 */
const NONE = -(2 ** 63);
/** Room for this many runs and run keys per conversation; beyond it, keys fall back to the filter. */
const MAX_RUNS = 64;
const MAX_KEYS = 256;

type KeyCount = { n: number; lastNs: number };
type Run = { endNs: number; keys: Map<number, KeyCount> };

/** A conversation's run counts, by the streak id (streakIdOf) of each run and key. */
export type RunStreaks = { runs: Map<number, Run>; keys: number };

export const emptyStreaks = (): RunStreaks => ({ runs: new Map(), keys: 0 });

/**
 * A run's or key's number: its first hash and 21 bits of its second, exact as a double. Two runs sharing one
 * would share their ends: at 53 bits, and 64 runs per conversation, about one conversation in 10^12.
 */
const HIGH = 2 ** 32;
export const streakId = (a: number, b: number): number => a + (b & 0x1fffff) * HIGH;
export const streakIdOf = (h: KeyHash): number => streakId(h.a, h.b);

/**
 * A call that ends run `run` (its streak id), starting at `at` ns; true when that changed the counts. The end moves only where
 * it resets a count: an end kept earlier than it could be only lets later calls count (an upper bound still),
 * and a conversation's counts are then written back only when a streak of failures is broken.
 */
export function endRun(s: RunStreaks, run: number, at: number): boolean {
  const r = s.runs.get(run);
  if (!r) return false;
  if (at <= r.endNs) return false;
  let reset = false;
  for (const k of r.keys.values())
    if (k.n > 0 && k.lastNs < at) {
      k.n = 0;
      reset = true;
    }
  if (reset) r.endNs = at;
  return reset;
}

/**
 * A call of run key `key` in run `run` (streak ids), starting at `at` ns: how many of the run's calls under the key it
 * makes since the run last ended (this one included), Infinity when it starts before that end, or null when the
 * key has no count (`first`: the conversation never had the key, so a count may start here).
 */
export function countRunKey(
  s: RunStreaks,
  run: number,
  key: number,
  at: number,
  first: boolean,
): number | null {
  let r = s.runs.get(run);
  let k = r?.keys.get(key);
  if (!r || !k) {
    if (!first || s.keys >= MAX_KEYS) return null;
    if (!r) {
      if (s.runs.size >= MAX_RUNS) return null;
      r = { endNs: NONE, keys: new Map() };
      s.runs.set(run, r);
    }
    k = { n: 0, lastNs: NONE };
    r.keys.set(key, k);
    s.keys++;
  }
  if (at <= r.endNs) return Number.POSITIVE_INFINITY;
  k.n++;
  if (at > k.lastNs) k.lastNs = at;
  return k.n;
}

// Stored after the filter's bits: u16 runs; per run its hash (u32, u32), end (i64) and u16 keys; per key its
// hash (u32, u32), count (u32) and latest start (i64). Little-endian. The i64s are written and read as two
// 32-bit halves (a double holds each stored time exactly, as it was rounded before it was stored); no closures
// here, as these run for every conversation of every batch.
const RUN_BYTES = 4 + 4 + 8 + 2;
const KEY_BYTES = 4 + 4 + 4 + 8;

function putId(v: DataView, at: number, id: number): void {
  v.setUint32(at, id % HIGH, true);
  v.setUint32(at + 4, Math.floor(id / HIGH), true);
}

function putTime(v: DataView, at: number, ns: number): void {
  const high = Math.floor(ns / HIGH);
  v.setUint32(at, ns - high * HIGH, true);
  v.setInt32(at + 4, high, true);
}

const idAt = (v: DataView, at: number) =>
  v.getUint32(at, true) + (v.getUint32(at + 4, true) & 0x1fffff) * HIGH;
const timeAt = (v: DataView, at: number) => v.getInt32(at + 4, true) * HIGH + v.getUint32(at, true);

/** The bytes the counts take. */
export const streaksSize = (s: RunStreaks): number =>
  2 + s.runs.size * RUN_BYTES + s.keys * KEY_BYTES;

/** Writes the counts at `at` of `v` (streaksSize bytes), so the filter's one buffer holds them. */
export function writeStreaks(s: RunStreaks, v: DataView, start: number): void {
  v.setUint16(start, s.runs.size, true);
  let at = start + 2;
  for (const [id, r] of s.runs) {
    putId(v, at, id);
    putTime(v, at + 8, r.endNs);
    v.setUint16(at + 16, r.keys.size, true);
    at += RUN_BYTES;
    for (const [keyId, k] of r.keys) {
      putId(v, at, keyId);
      v.setUint32(at + 8, Math.min(k.n, 0xffffffff), true);
      putTime(v, at + 12, k.lastNs);
      at += KEY_BYTES;
    }
  }
}

/** The counts as bytes of their own. */
export function streaksBytes(s: RunStreaks): Uint8Array {
  const out = new Uint8Array(streaksSize(s));
  writeStreaks(s, new DataView(out.buffer), 0);
  return out;
}

/** The counts stored after a filter; a missing or damaged table is empty (its keys fall back to the filter). */
export function streaksOf(bytes: Uint8Array): RunStreaks {
  const s = emptyStreaks();
  if (bytes.length < 2) return s;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const runs = v.getUint16(0, true);
  let at = 2;
  for (let i = 0; i < runs; i++) {
    if (at + RUN_BYTES > bytes.length || s.runs.size >= MAX_RUNS) return emptyStreaks();
    const id = idAt(v, at);
    const run: Run = { endNs: timeAt(v, at + 8), keys: new Map() };
    const keys = v.getUint16(at + 16, true);
    at += RUN_BYTES;
    for (let j = 0; j < keys; j++) {
      if (at + KEY_BYTES > bytes.length || s.keys >= MAX_KEYS) return emptyStreaks();
      run.keys.set(idAt(v, at), { n: v.getUint32(at + 8, true), lastNs: timeAt(v, at + 12) });
      at += KEY_BYTES;
      s.keys++;
    }
    s.runs.set(id, run);
  }
  return at === bytes.length ? s : emptyStreaks();
}
