// A small Bloom filter of the loop trigger keys a conversation has seen (detectors/loops: each detector says
// under which keys a new call may extend one of its loops), stored on the conversation's row. A batch re-reads
// a conversation's calls only when one of its keys may have been seen there before: no per-process memory, so
// any collector can decide, and a false positive only costs one indexed read. 4096 bits and 4 probes: by the
// usual estimate (1 − e^(−4n/4096))^4, about 0.1 % false positives at 200 keys, 4 % at 600, 15 % at 1,000.
//
// Stored as a format byte and the bits. A filter of the earlier format (512 bytes of bits over other keys) says
// "maybe" to every key, so the first batch after an upgrade re-reads the conversation, and the stage rebuilds
// the filter from what it read.

export const BLOOM_BYTES = 512;
const BITS = BLOOM_BYTES * 8;
const PROBES = 4;
/** The first byte of a stored filter of this format. */
const FORMAT = 2;

export type KeyFilter = {
  bits: Uint8Array;
  /** A filter of an earlier format: every key may be in it. */
  legacy: boolean;
};

function fnv1a(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The key's probe positions, written into a reused array (a generator here cost a tenth of the writer
 * thread's time under load): double hashing, an odd second hash keeping the probes distinct.
 */
const probes = new Uint32Array(PROBES);
function positions(key: string): Uint32Array {
  const a = fnv1a(key, 0x811c9dc5);
  const b = fnv1a(key, 0x9e3779b9) | 1;
  for (let i = 0; i < PROBES; i++) probes[i] = ((a + Math.imul(i, b)) >>> 0) % BITS;
  return probes;
}

/** A filter read from the database: empty for a missing or malformed value, legacy for the old format. */
export function filterOf(stored: unknown): KeyFilter {
  const bits = new Uint8Array(BLOOM_BYTES);
  if (stored instanceof Uint8Array) {
    if (stored.length === BLOOM_BYTES + 1 && stored[0] === FORMAT) {
      bits.set(stored.subarray(1));
      return { bits, legacy: false };
    }
    if (stored.length === BLOOM_BYTES) return { bits, legacy: true };
  }
  return { bits, legacy: false };
}

/** An empty filter. */
export const emptyFilter = (): KeyFilter => filterOf(null);

/** The bytes to store. */
export function filterBytes(f: KeyFilter): Uint8Array {
  const out = new Uint8Array(BLOOM_BYTES + 1);
  out[0] = FORMAT;
  out.set(f.bits, 1);
  return out;
}

export function filterHas(f: KeyFilter, key: string): boolean {
  if (f.legacy) return true;
  const at = positions(key);
  for (let i = 0; i < PROBES; i++) {
    const p = at[i] as number;
    if (((f.bits[p >>> 3] ?? 0) & (1 << (p & 7))) === 0) return false;
  }
  return true;
}

/** Adds a key; true when that set a bit (or made a legacy filter current), so it must be written back. */
export function filterAdd(f: KeyFilter, key: string): boolean {
  let changed = f.legacy;
  f.legacy = false;
  const at = positions(key);
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
