// The window's slots and the end of a prefix range: every id that starts with the prefix sorts inside
// [prefix, prefixEnd), and nothing else does, in byte order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prefixEnd, SLOT_NS, slotsOf, slotWhere } from './call-slot.js';

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('call slots', () => {
  it('lists the slots of a window newest first, and falls back to a range past 5,000', () => {
    expect(slotsOf(SLOT_NS * 10n + 5n, SLOT_NS * 12n + 1n)).toEqual([12n, 11n, 10n]);
    expect(slotsOf(SLOT_NS * 10n, SLOT_NS * 12n)).toEqual([11n, 10n]);
    expect(slotWhere(0n, SLOT_NS * 6_000n)).toBe('(start_ns / 600000000000) BETWEEN 0 AND 5999');
    expect(slotWhere(5n, 5n)).toBe('1 = 0');
  });

  it('ends a prefix range right after the last string that starts with it', () => {
    expect(prefixEnd('call_')).toBe('call`');
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    expect(prefixEnd('\u{10ffff}')).toBeNull();
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1 }),
        fc.string({ unit: 'grapheme' }),
        (p, rest) => {
          const end = prefixEnd(p);
          const id = p + rest;
          expect(byteOrder(id, p)).toBeGreaterThanOrEqual(0);
          if (end !== null) expect(byteOrder(id, end)).toBeLessThan(0);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
