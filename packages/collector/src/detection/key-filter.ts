// A Bloom filter of the loop trigger keys a conversation has seen (detectors/loops: each detector says under
// which keys a new call may extend one of its loops), stored on the conversation's row. A batch re-reads a
// conversation's calls only when one of its keys may have been seen there before: no per-process memory, so any
// collector can decide, and a false positive only costs one indexed read.
//
// It grows with the conversation, in layers (a scalable Bloom filter): 4,096 bits first, and when the newest
// layer is as full as its bound allows, a new one twice its size takes the keys from then on. A fixed 4,096
// bits gave 0.1 % false positives at 200 keys but 15 % at 1,000, and every false positive re-reads the tool's
// calls in the conversation: a 600,000-span bench run re-read 688,000 rows for 1,853 of them
// (docs/decisions/0070-key-filters-grow-with-the-conversation.md). Each layer's bound is tighter than the one
// before (fill f0·2^(−i/4), so its false positives halve), so the filter's stay under 2·f0^4 = 0.32 % whatever
// its size, until MAX_LAYERS. Counted in key rungs (a key climbs one per call where a detector needs several
// earlier calls): a conversation of up to about 230 keeps one layer of 512 bytes, as before.
//
// A key is hashed once (keyHash); its rungs ("seen at least r times", scopes.ts) are probe sets derived from
// that hash, so counting a key costs arithmetic, not a string and a hash per rung. Stored as a format byte, the
// number of layers and their bits, then the run counts of run-streaks.ts. A filter of format 3 (one layer of
// 4,096 bits, the probes the same) is read as the first layer, however full: its keys stay found, and new keys
// go to a new layer once it is past its bound (its own false positives stay as they were: the 0.32 % holds for
// filters begun in layers). Any other stored value (512 bytes of bits, or format 2, whose keys and rungs were
// hashed otherwise; a later format; a damaged one) says "maybe" to every key, so the next batch re-reads the
// conversation, and the stage rebuilds the filter from what it read. A collector before format 4 read format 4
// as empty, so the stores' schema versions moved with it (SQLite 17, PostgreSQL 15): such a collector refuses
// them.

import {
  emptyStreaks,
  type RunStreaks,
  streaksOf,
  streaksSize,
  writeStreaks,
} from './run-streaks.js';

/** The first layer's bytes; layer i has BLOOM_BYTES · 2^i. */
export const BLOOM_BYTES = 512;
const PROBES = 4;
/** The first byte of a stored filter of this format; FORMAT_ONE_LAYER's are read as one layer. */
const FORMAT = 4;
const FORMAT_ONE_LAYER = 3;
/**
 * At most this many layers (15.5 KiB of bits, about 4,000 keys within the bound); past them the newest takes
 * every key, and its false positives grow again, as the single layer's did.
 */
export const MAX_LAYERS = 5;
/** The first layer's bound on the share of its bits set: 0.16 % false positives (0.2^4). */
const FILL_0 = 0.2;

export type KeyFilter = {
  /** The layers, oldest first, each a view of the stored bytes or new; keys are added to the last. */
  layers: Uint8Array[];
  /** Bits set in the last layer, counted when first needed (-1 until then). */
  ones: number;
  /** A stored value this filter could not read (an earlier format, a later one, damage): every key may be in it. */
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
 * The probe positions of a key's rung in a layer of `bits` bits, written into a reused array (a generator here
 * cost a tenth of the writer thread's time under load): double hashing, the rung mixed into the first hash, an
 * odd second hash keeping the probes distinct. The first layer's are format 3's.
 */
const probes = new Uint32Array(PROBES);
function positions(h: KeyHash, rung: number, bits: number): Uint32Array {
  const a = rung === 1 ? h.a : Math.imul(h.a ^ Math.imul(rung, 0x27d4eb2f), 0x165667b1) >>> 0;
  const b = h.b | 1;
  for (let i = 0; i < PROBES; i++) probes[i] = ((a + Math.imul(i, b)) >>> 0) % bits;
  return probes;
}

const hashOf = (key: string | KeyHash): KeyHash => (typeof key === 'string' ? keyHash(key) : key);

const layerBytes = (i: number) => BLOOM_BYTES << i;
/** The bits of layers 0..n-1 together. */
const layersBytes = (n: number) => BLOOM_BYTES * (2 ** n - 1);

/**
 * A filter read from the database: empty for a missing or empty value, legacy for any it cannot read. It
 * takes the stored bytes over: its layers are views of them, changed in place (a copy of each conversation's
 * bits per batch was a tenth of the stage's time), so the caller must not use them again.
 */
export function filterOf(read: unknown): KeyFilter {
  if (read instanceof Uint8Array) {
    // A plain Uint8Array over a Buffer's bytes (both drivers read bytes as Buffers): layers of two kinds made the
    // optimized code of every function that reads them meet a second map and be made again.
    const stored = new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
    const n = stored[1] ?? 0;
    if (stored[0] === FORMAT && n >= 1 && n <= MAX_LAYERS && stored.length >= 2 + layersBytes(n)) {
      const layers: Uint8Array[] = [];
      for (let i = 0, at = 2; i < n; at += layerBytes(i), i++)
        layers.push(stored.subarray(at, at + layerBytes(i)));
      return filter(layers, false, streaksOf(stored.subarray(2 + layersBytes(n))));
    }
    if (stored.length > BLOOM_BYTES && stored[0] === FORMAT_ONE_LAYER)
      return filter(
        [stored.subarray(1, BLOOM_BYTES + 1)],
        false,
        streaksOf(stored.subarray(BLOOM_BYTES + 1)),
      );
    // Anything else stored (the 512-byte format, format 2, a later format or more layers than MAX_LAYERS, a
    // damaged value) may hold any key: a re-read, never a missed loop.
    if (stored.length > 0) return filter([new Uint8Array(BLOOM_BYTES)], true, emptyStreaks());
  }
  // None yet: a new conversation's row holds an empty value.
  return filter([new Uint8Array(BLOOM_BYTES)], false, emptyStreaks());
}

const filter = (layers: Uint8Array[], legacy: boolean, streaks: RunStreaks): KeyFilter => ({
  layers,
  ones: -1,
  legacy,
  streaks,
});

/** An empty filter. */
export const emptyFilter = (): KeyFilter => filterOf(null);

/**
 * The bytes to store, in one buffer from Node's pool (a typed array of its own per conversation and batch, with
 * its backing store, cost more than writing it): every byte of it is written here.
 */
export function filterBytes(f: KeyFilter): Uint8Array {
  const n = f.layers.length;
  const bits = layersBytes(n);
  const out = Buffer.allocUnsafe(2 + bits + streaksSize(f.streaks));
  out[0] = FORMAT;
  out[1] = n;
  for (let i = 0, at = 2; i < n; at += layerBytes(i), i++) out.set(f.layers[i] as Uint8Array, at);
  writeStreaks(f.streaks, new DataView(out.buffer, out.byteOffset, out.length), 2 + bits);
  return out;
}

/** Whether the layer holds the key's rung. */
function layerHas(layer: Uint8Array, h: KeyHash, rung: number): boolean {
  const at = positions(h, rung, layer.length * 8);
  for (let i = 0; i < PROBES; i++) {
    const p = at[i] as number;
    if (((layer[p >>> 3] ?? 0) & (1 << (p & 7))) === 0) return false;
  }
  return true;
}

/** Whether the filter may hold the key's rung (1: the key itself). */
export function filterHas(f: KeyFilter, key: string | KeyHash, rung = 1): boolean {
  if (f.legacy) return true;
  const h = hashOf(key);
  for (const layer of f.layers) if (layerHas(layer, h, rung)) return true;
  return false;
}

/**
 * Adds a key's rung; true when that set a bit (or made a legacy filter current), so it must be written back. A
 * rung some layer may hold already is not added again: the newest layer's room is for new keys.
 */
export function filterAdd(f: KeyFilter, key: string | KeyHash, rung = 1): boolean {
  const h = hashOf(key);
  let changed = f.legacy;
  if (!f.legacy && filterHas(f, h, rung)) return false;
  f.legacy = false;
  const layer = newestWithRoom(f);
  const at = positions(h, rung, layer.length * 8);
  for (let i = 0; i < PROBES; i++) {
    const p = at[i] as number;
    const byte = layer[p >>> 3] ?? 0;
    const bit = 1 << (p & 7);
    if ((byte & bit) === 0) {
      layer[p >>> 3] = byte | bit;
      f.ones++;
      changed = true;
    }
  }
  return changed;
}

/** The layer new keys go to: the newest, or a new one after it when the newest is at its bound. */
function newestWithRoom(f: KeyFilter): Uint8Array {
  const i = f.layers.length - 1;
  const newest = f.layers[i] as Uint8Array;
  if (f.ones < 0) f.ones = onesIn(newest);
  if (i + 1 >= MAX_LAYERS || f.ones < newest.length * 8 * FILL_0 * 2 ** (-i / 4)) return newest;
  const next = new Uint8Array(layerBytes(i + 1));
  f.layers.push(next);
  f.ones = 0;
  return next;
}

/** Set bits of a layer. */
function onesIn(layer: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < layer.length; i++) {
    let v = layer[i] as number;
    while (v) {
      v &= v - 1;
      n++;
    }
  }
  return n;
}
