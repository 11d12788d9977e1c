// The blocks of a window's rows and the end of a prefix range: every id that starts with the prefix sorts
// inside [prefix, prefixEnd), and nothing else does, in byte order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockWhere, prefixEnd } from './call-block.js';

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('call blocks', () => {
  it('names the blocks a query reads as the indexed expression, and none as no row', () => {
    expect(blockWhere([12n, 11n, 10n])).toBe('(id / 4096) IN (12, 11, 10)');
    expect(blockWhere([])).toBe('1 = 0');
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
