import { describe, expect, it } from 'vitest';
import { BLOOM_BYTES, bloomAdd, bloomHas, bloomOf } from './key-bloom.js';

describe('key filter', () => {
  it('finds every key it was given, and few it was not', () => {
    const bloom = bloomOf(null);
    const keys = Array.from(
      { length: 200 },
      (_, i) => `get_order\u0000${(i * 2654435761).toString(16)}`,
    );
    for (const k of keys) bloomAdd(bloom, k);
    for (const k of keys) expect(bloomHas(bloom, k)).toBe(true);
    let falsePositives = 0;
    for (let i = 0; i < 10_000; i++) if (bloomHas(bloom, `other\u0000${i}`)) falsePositives++;
    // About 0.1 % expected at 200 keys (4096 bits, 4 probes); a bound well above it, far below "everything".
    expect(falsePositives).toBeLessThan(400);
  });

  it('reads a stored filter back, and treats a malformed one as empty', () => {
    const bloom = bloomOf(null);
    bloomAdd(bloom, 'a\u0000b');
    expect(bloomHas(bloomOf(Buffer.from(bloom)), 'a\u0000b')).toBe(true);
    expect(bloomHas(bloomOf(Buffer.alloc(3)), 'a\u0000b')).toBe(false);
    expect(bloomOf('garbage').length).toBe(BLOOM_BYTES);
  });
});
