import { describe, expect, it } from 'vitest';
import {
  BLOOM_BYTES,
  emptyFilter,
  filterAdd,
  filterBytes,
  filterHas,
  filterOf,
  keyHash,
} from './key-filter.js';

describe('key filter', () => {
  it('finds every key it was given, and few it was not', () => {
    const f = emptyFilter();
    const keys = Array.from(
      { length: 200 },
      (_, i) => `get_order\u0000${(i * 2654435761).toString(16)}`,
    );
    for (const k of keys) filterAdd(f, k);
    for (const k of keys) expect(filterHas(f, k)).toBe(true);
    let falsePositives = 0;
    for (let i = 0; i < 10_000; i++) if (filterHas(f, `other\u0000${i}`)) falsePositives++;
    // About 0.1 % expected at 200 keys (4096 bits, 4 probes); a bound well above it, far below "everything".
    expect(falsePositives).toBeLessThan(400);
  });

  it('reads a stored filter back, and treats a malformed one as empty', () => {
    const f = emptyFilter();
    filterAdd(f, 'a\u0000b');
    expect(filterHas(filterOf(Buffer.from(filterBytes(f))), 'a\u0000b')).toBe(true);
    expect(filterHas(filterOf(Buffer.alloc(3)), 'a\u0000b')).toBe(false);
    expect(filterOf('garbage').bits.length).toBe(BLOOM_BYTES);
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

  it("keeps a key's rungs apart from the key and from each other", () => {
    const f = emptyFilter();
    const k = keyHash('churn\u0000put\u0000a:string\u0000INVALID_INPUT');
    filterAdd(f, k, 1);
    filterAdd(f, k, 2);
    expect([1, 2, 3].map((r) => filterHas(f, k, r))).toEqual([true, true, false]);
    expect(filterHas(f, 'churn\u0000put\u0000a:string\u0000INVALID_INPUT')).toBe(true);
  });
});
