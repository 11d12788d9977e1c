import { describe, expect, it } from 'vitest';
import {
  BLOOM_BYTES,
  emptyFilter,
  filterAdd,
  filterBytes,
  filterHas,
  filterOf,
  keyHash,
  MAX_LAYERS,
} from './key-filter.js';

const keyOf = (i: number) => `get_order\u0000${(i * 2654435761).toString(16)}`;
const falsePositivesIn = (f: ReturnType<typeof emptyFilter>, tries: number) => {
  let n = 0;
  for (let i = 0; i < tries; i++) if (filterHas(f, `other\u0000${i}`)) n++;
  return n;
};

describe('key filter', () => {
  it('finds every key it was given, and few it was not', () => {
    const f = emptyFilter();
    for (let i = 0; i < 200; i++) filterAdd(f, keyOf(i));
    for (let i = 0; i < 200; i++) expect(filterHas(f, keyOf(i))).toBe(true);
    // About 0.1 % expected at 200 keys (4096 bits, 4 probes); a bound well above it, far below "everything".
    expect(falsePositivesIn(f, 10_000)).toBeLessThan(400);
  });

  it('reads a stored filter back, and treats a malformed one as empty', () => {
    const f = emptyFilter();
    filterAdd(f, 'a\u0000b');
    expect(filterHas(filterOf(Buffer.from(filterBytes(f))), 'a\u0000b')).toBe(true);
    expect(filterHas(filterOf(Buffer.alloc(3)), 'a\u0000b')).toBe(false);
    expect(filterOf('garbage').layers.map((l) => l.length)).toEqual([BLOOM_BYTES]);
  });

  it('says "maybe" to every key for a filter of an earlier format, until a key is added', () => {
    const formatTwo = Buffer.alloc(BLOOM_BYTES + 1, 0);
    formatTwo[0] = 2;
    expect(filterHas(filterOf(formatTwo), 'anything')).toBe(true);
    const legacy = filterOf(Buffer.alloc(BLOOM_BYTES, 0));
    expect(filterHas(legacy, 'anything')).toBe(true);
    expect(filterAdd(legacy, 'k')).toBe(true);
    expect(filterHas(legacy, 'anything')).toBe(false);
    expect(filterHas(legacy, 'k')).toBe(true);
  });

  it('grows in layers, so a long conversation keeps few false positives, and loses no key', () => {
    const f = emptyFilter();
    for (let i = 0; i < 3_000; i++) filterAdd(f, keyOf(i));
    // A single layer of 4,096 bits would say "maybe" to about 95 % of other keys here; the bound is 0.32 %.
    expect(falsePositivesIn(f, 20_000)).toBeLessThan(200);
    const back = filterOf(Buffer.from(filterBytes(f)));
    expect(back.layers.map((l) => l.length)).toEqual(f.layers.map((l) => l.length));
    expect(back.layers.length).toBeGreaterThan(1);
    for (let i = 0; i < 3_000; i++) expect(filterHas(back, keyOf(i))).toBe(true);
  });

  it('keeps a short conversation in one layer of 512 bytes, and stops adding layers at the cap', () => {
    const f = emptyFilter();
    for (let i = 0; i < 200; i++) filterAdd(f, keyOf(i));
    expect(f.layers.map((l) => l.length)).toEqual([BLOOM_BYTES]);
    for (let i = 200; i < 20_000; i++) filterAdd(f, keyOf(i));
    expect(f.layers.length).toBe(MAX_LAYERS);
    for (let i = 0; i < 20_000; i += 7) expect(filterHas(f, keyOf(i))).toBe(true);
  });

  it('does not add a key some layer already holds, so a repeated key is not written back', () => {
    const f = emptyFilter();
    for (let i = 0; i < 1_000; i++) filterAdd(f, keyOf(i));
    const layers = f.layers.length;
    for (let i = 0; i < 1_000; i++) expect(filterAdd(f, keyOf(i))).toBe(false);
    expect(f.layers.length).toBe(layers);
  });

  it('reads a filter of format 3 (one layer, the same probes) as its first layer, however full', () => {
    // Format 3 written by its own rule, not by the code under test: 4,096 bits, probe i at (a + i·(b|1)) mod 4096.
    const stored = Buffer.alloc(1 + BLOOM_BYTES + 2);
    stored[0] = 3;
    const set = (key: string) => {
      const { a, b } = keyHash(key);
      for (let i = 0; i < 4; i++) {
        const p = ((a + Math.imul(i, b | 1)) >>> 0) % 4096;
        stored[1 + (p >>> 3)] = (stored[1 + (p >>> 3)] as number) | (1 << (p & 7));
      }
    };
    for (let i = 0; i < 600; i++) set(keyOf(i));
    const f = filterOf(stored);
    expect(f.legacy).toBe(false);
    for (let i = 0; i < 600; i++) expect(filterHas(f, keyOf(i))).toBe(true);
    // Past its bound already: the next new key starts a second layer, and both are stored.
    expect(filterAdd(f, 'new\u0000key')).toBe(true);
    expect(f.layers.length).toBe(2);
    const back = filterOf(Buffer.from(filterBytes(f)));
    expect(filterHas(back, 'new\u0000key')).toBe(true);
    for (let i = 0; i < 600; i++) expect(filterHas(back, keyOf(i))).toBe(true);
  });

  it("keeps a key's rungs apart from the key and from each other", () => {
    const f = emptyFilter();
    const k = keyHash('churn\u0000put\u0000a:string\u0000INVALID_INPUT');
    filterAdd(f, k, 1);
    filterAdd(f, k, 2);
    expect([1, 2, 3].map((r) => filterHas(f, k, r))).toEqual([true, true, false]);
    expect(filterHas(f, 'churn\u0000put\u0000a:string\u0000INVALID_INPUT')).toBe(true);
  });
});
