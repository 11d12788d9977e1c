// A histogram's stored text is what JSON.stringify makes of an object of its buckets, whatever the order they
// were counted in, and reads back as the same counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addParsed, addSerialized, deserialize, serialize } from './histogram.js';

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

/** What JSON.parse reads of `text`, with the damage it reports. */
function parsedReference(text: string, damage: string[]): Map<number, number> {
  return addParsed(new Map(), text, (what) => damage.push(what));
}

describe('deserialize', () => {
  const pieces = [
    '{',
    '}',
    '"',
    ':',
    ',',
    '0',
    '1',
    '7',
    '9',
    '00',
    '-1',
    '1.5',
    ' ',
    '1e3',
    'x',
    '2147483648',
    '123456789012345678',
  ];
  /** Texts near serialize's form: its own output, then pieces of it cut, repeated and replaced. */
  const nearText = fc.oneof(
    // Valid JSON that serialize never writes: a bucket twice (the last wins), out of order, spaced, zeros.
    fc.constantFrom(
      '{"1":2,"1":3}',
      '{"5":1,"2":1}',
      '{ "1": 2 }',
      '{"01":2}',
      '{"1":0}',
      '{"-0":1}',
    ),
    fc
      .array(fc.tuple(fc.nat(3_000_000_000), fc.integer({ min: 0, max: 2 ** 53 })), {
        maxLength: 12,
      })
      .map((entries) => JSON.stringify(Object.fromEntries(entries))),
    fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((p) => p.join('')),
    fc
      .tuple(
        fc.array(fc.tuple(fc.nat(400), fc.integer({ min: 1, max: 1e6 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat(60),
        fc.constantFrom(...pieces),
      )
      .map(([entries, at, piece]) => {
        const text = serialize(new Map(entries));
        const i = at % text.length;
        return text.slice(0, i) + piece + text.slice(i + 1);
      }),
  );

  it('reads any text as JSON.parse did, damage and all, and serialize output by hand', () => {
    fc.assert(
      fc.property(nearText, fc.array(fc.tuple(fc.nat(50), fc.nat(9))), (text, before) => {
        const damage: string[] = [];
        const expected = parsedReference(text, damage);
        const seen: string[] = [];
        const into = new Map(before.filter(([, n]) => n > 0));
        const expectedInto = new Map(into);
        for (const [b, n] of expected) expectedInto.set(b, (expectedInto.get(b) ?? 0) + n);
        expect(addSerialized(into, text, (what) => seen.push(what))).toEqual(expectedInto);
        expect([...into.keys()]).toEqual([...expectedInto.keys()]);
        expect(seen).toEqual(damage);
      }),
      { numRuns: 3000 },
    );
  });
});
