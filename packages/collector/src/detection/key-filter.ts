// A small Bloom filter of the loop trigger keys a conversation has seen (detectors/loops: each detector says
// under which keys a new call may extend one of its loops), stored on the conversation's row. A batch re-reads
// a conversation's calls only when one of its keys may have been seen there before: no per-process memory, so
// any collector can decide, and a false positive only costs one indexed read. 4096 bits and 4 probes: by the
// usual estimate (1 − e^(−4n/4096))^4, about 0.1 % false positives at 200 keys, 4 % at 600, 15 % at 1,000.
//
// A key is hashed once (keyHash); its rungs ("seen at least r times", scopes.ts) are probe sets derived from
// that hash, so counting a key costs arithmetic, not a string and a hash per rung. Stored as a format byte and
// the bits, then the run counts of run-streaks.ts. A filter of an earlier format (512 bytes of bits, or format 2, whose keys and rungs were hashed
// otherwise) says "maybe" to every key, so the first batch after an upgrade re-reads the conversation, and the
// stage rebuilds the filter from what it read.

import {
  emptyStreaks,
  type RunStreaks,
  streaksOf,
  streaksSize,
  writeStreaks,
} from './run-streaks.js';

export const BLOOM_BYTES = 512;
const BITS = BLOOM_BYTES * 8;
const PROBES = 4;
/** The first byte of a stored filter of this format. */
const FORMAT = 3;

export type KeyFilter = {
  bits: Uint8Array;
  /** A filter of an earlier format: every key may be in it. */
  legacy: boolean;
  /** The conversation's run counts, stored with the filter. */
  streaks: RunStreaks;
};

/** A key's two 32-bit hashes, from one pass over its text (FNV-1a, and a second multiplier alongside). */
export type KeyHash = { readonly a: number; readonly b: number };

export function keyHash(text: string): KeyHash {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return { a: a >>> 0, b: (b ^ (b >>> 15)) >>> 0 };
}

/**
 * The probe positions of a key's rung, written into a reused array (a generator here cost a tenth of the
 * writer thread's time under load): double hashing, the rung mixed into the first hash, an odd second hash
 * keeping the probes distinct.
 */
const probes = new Uint32Array(PROBES);
function positions(h: KeyHash, rung: number): Uint32Array {
  const a = rung === 1 ? h.a : Math.imul(h.a ^ Math.imul(rung, 0x27d4eb2f), 0x165667b1) >>> 0;
  const b = h.b | 1;
  for (let i = 0; i < PROBES; i++) probes[i] = ((a + Math.imul(i, b)) >>> 0) % BITS;
  return probes;
}

const hashOf = (key: string | KeyHash): KeyHash => (typeof key === 'string' ? keyHash(key) : key);

/**
 * A filter read from the database: empty for a missing or malformed value, legacy for an earlier format. It
 * takes the stored bytes over: its bits are a view of them, changed in place (a copy of each conversation's
 * bits per batch was a tenth of the stage's time), so the caller must not use them again.
 */
export function filterOf(stored: unknown): KeyFilter {
  if (stored instanceof Uint8Array) {
    if (stored.length > BLOOM_BYTES && stored[0] === FORMAT)
      return {
        bits: stored.subarray(1, BLOOM_BYTES + 1),
        legacy: false,
        streaks: streaksOf(stored.subarray(BLOOM_BYTES + 1)),
      };
    if (stored.length === BLOOM_BYTES || (stored.length === BLOOM_BYTES + 1 && stored[0] === 2))
      return { bits: new Uint8Array(BLOOM_BYTES), legacy: true, streaks: emptyStreaks() };
  }
  return { bits: new Uint8Array(BLOOM_BYTES), legacy: false, streaks: emptyStreaks() };
}

/** An empty filter. */
export const emptyFilter = (): KeyFilter => filterOf(null);

/**
 * The bytes to store, in one buffer from Node's pool (a typed array of its own per conversation and batch, with
 * its backing store, cost more than writing it): every byte of it is written here.
 */
export function filterBytes(f: KeyFilter): Uint8Array {
  const out = Buffer.allocUnsafe(BLOOM_BYTES + 1 + streaksSize(f.streaks));
  out[0] = FORMAT;
  out.set(f.bits, 1);
  writeStreaks(f.streaks, new DataView(out.buffer, out.byteOffset, out.length), BLOOM_BYTES + 1);
  return out;
}

/** Whether the filter may hold the key's rung (1: the key itself). */
export function filterHas(f: KeyFilter, key: string | KeyHash, rung = 1): boolean {
  if (f.legacy) return true;
  const at = positions(hashOf(key), rung);
  for (let i = 0; i < PROBES; i++) {
    const p = at[i] as number;
    if (((f.bits[p >>> 3] ?? 0) & (1 << (p & 7))) === 0) return false;
  }
  return true;
}

/** Adds a key's rung; true when that set a bit (or made a legacy filter current), so it must be written back. */
export function filterAdd(f: KeyFilter, key: string | KeyHash, rung = 1): boolean {
  let changed = f.legacy;
  f.legacy = false;
  const at = positions(hashOf(key), rung);
  for (let i = 0; i < PROBES; i++) {
    const p = at[i] as number;
    const byte = f.bits[p >>> 3] ?? 0;
    const bit = 1 << (p & 7);
    if ((byte & bit) === 0) {
      f.bits[p >>> 3] = byte | bit;
      changed = true;
    }
  }
  return changed;
}
