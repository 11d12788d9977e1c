// The writer's keys as bytes: exactly the 16-lowercase-hex values become their 8 bytes, as the regular
// expression and Buffer.from(…, 'hex') made them before the hand-written parse; everything else stays text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEYED_COLUMNS } from '../call-row.js';
import { KeyBuffers, keyBytes } from './call-rows.js';

const HEX16 = /^[0-9a-f]{16}$/;
const before = (v: string) => (HEX16.test(v) ? Buffer.from(v, 'hex') : v);

/** Strings near the edge: 16 characters of hex, upper-case hex, neighbours of the digit ranges, non-ASCII. */
const keyish = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{16}$/),
  fc.string({
    minLength: 15,
    maxLength: 17,
    unit: fc.constantFrom(...'0189afgAF/:`G\u0130\u00e9'.split('')),
  }),
  fc.string({ minLength: 16, maxLength: 16 }),
  fc.string(),
);

describe('keys as bytes', () => {
  it('converts exactly what the regular expression accepted, to the same bytes', () => {
    fc.assert(
      fc.property(keyish, (v) => {
        expect(keyBytes(v)).toEqual(before(v));
      }),
      { numRuns: 5000 },
    );
    expect(keyBytes(null)).toBeNull();
    expect(keyBytes('00f067aa0ba902b7')).toEqual(
      Buffer.from([0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]),
    );
    expect(keyBytes('00F067AA0BA902B7')).toBe('00F067AA0BA902B7');
  });

  it('gives each of a row’s keys a buffer of its own, and text back untouched', () => {
    fc.assert(
      fc.property(
        fc.array(keyish, { minLength: KEYED_COLUMNS, maxLength: KEYED_COLUMNS }),
        (row) => {
          const keys = new KeyBuffers();
          const made = row.map((v) => keys.key(v));
          // Read after the whole row is made, as SQLite binds it: no key overwrote another.
          expect(made.map((k) => (Buffer.isBuffer(k) ? Buffer.from(k) : k))).toEqual(
            row.map(before),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
