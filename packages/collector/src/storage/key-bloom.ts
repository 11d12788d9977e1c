// A small Bloom filter of the (tool, input hash) keys a conversation has called, stored on its row in the
// database (conversations.keys). A batch re-reads a conversation's calls only when one of its keys may have
// been called there before: no per-process memory, so any collector can decide, and a false positive only
// costs one indexed read. 4096 bits and 4 probes: by the usual estimate (1 − e^(−4n/4096))^4, about 0.1 % false
// positives at 200 keys, 4 % at 600, 15 % at 1,000.

export const BLOOM_BYTES = 512;
const BITS = BLOOM_BYTES * 8;
const PROBES = 4;

function fnv1a(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function* positions(key: string): Generator<number> {
  const a = fnv1a(key, 0x811c9dc5);
  // An odd second hash keeps the probes of double hashing distinct.
  const b = fnv1a(key, 0x9e3779b9) | 1;
  for (let i = 0; i < PROBES; i++) yield ((a + Math.imul(i, b)) >>> 0) % BITS;
}

/** A filter read from the database, or an empty one for a missing or malformed value. */
export function bloomOf(stored: unknown): Uint8Array {
  const out = new Uint8Array(BLOOM_BYTES);
  if (stored instanceof Uint8Array && stored.length === BLOOM_BYTES) out.set(stored);
  return out;
}

export function bloomHas(bloom: Uint8Array, key: string): boolean {
  for (const p of positions(key)) if (((bloom[p >>> 3] ?? 0) & (1 << (p & 7))) === 0) return false;
  return true;
}

/** Adds a key; true when that set a bit, so the stored filter must be written back. */
export function bloomAdd(bloom: Uint8Array, key: string): boolean {
  let changed = false;
  for (const p of positions(key)) {
    const byte = bloom[p >>> 3] ?? 0;
    const bit = 1 << (p & 7);
    if ((byte & bit) === 0) {
      bloom[p >>> 3] = byte | bit;
      changed = true;
    }
  }
  return changed;
}
