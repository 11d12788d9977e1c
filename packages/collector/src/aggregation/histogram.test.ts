// A histogram's stored text is what JSON.stringify makes of an object of its buckets, whatever the order they
// were counted in, and reads back as the same counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deserialize, serialize } from './histogram.js';

describe('serialize', () => {
  it('writes the text JSON.stringify writes, and reads back the same counts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2_000), fc.integer({ min: 1, max: 2 ** 40 })), { maxLength: 120 }),
        (entries) => {
          const h = new Map(entries);
          const text = serialize(h);
          expect(text).toBe(JSON.stringify(Object.fromEntries(h)));
          expect(deserialize(text)).toEqual(new Map([...h].sort(([a], [b]) => a - b)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
