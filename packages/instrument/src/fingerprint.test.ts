import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { fingerprint, hashCanonical, inputPrint } from './fingerprint.js';
import { createHasher } from './hashing.js';
import { inputShape } from './input-shape.js';

const KEY = 'fingerprint-test-key';
const hasher = createHasher(KEY);
/** What the fast path must agree with: the general shape, and node:crypto's HMAC of the general canonical JSON. */
const expected = (value: unknown) => {
  const canonical = canonicalJson(value);
  return {
    shape: inputShape(value),
    hash: createHmac('sha256', KEY).update(canonical, 'utf8').digest('hex').slice(0, 16),
  };
};

describe('fingerprint', () => {
  it('agrees with the general shape and the keyed hash of the general canonical JSON on any JSON value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(
            fc.string({ unit: 'binary' }),
            fc.oneof(
              fc.string(),
              fc.string({ unit: 'binary' }),
              fc.double(),
              fc.boolean(),
              fc.constant(null),
            ),
          ),
          fc.dictionary(
            fc.stringMatching(/^[A-Za-z_$][\w$-]{0,20}$/),
            fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.integer(), fc.boolean()),
          ),
        ),
        (value) => {
          expect(fingerprint(value, hasher)).toEqual(expected(value));
          // The copy kept to hash after the response (a string when ASCII, bytes otherwise) hashes the same.
          const print = inputPrint(value);
          expect({ shape: print.shape, hash: hashCanonical(print.canonical, hasher) }).toEqual(
            expected(value),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes flat objects with unusual keys or values through the general path', () => {
    for (const value of [
      { 'a b': 1 },
      { a: undefined, b: 1 },
      { a: 1n },
      { a: Number.NaN },
      { __proto__: null, a: 1 },
      { a: 'quote " and \\ backslash', b: 'tab\there' },
      { a: 'é', b: '\u007f', c: '🙂', d: '\ud800', e: 'ü漢', f: 'line\n🙂' },
    ]) {
      expect(fingerprint(value, hasher)).toEqual(expected(value));
    }
  });

  it('gives the right hash when a getter of the input fingerprints another input midway', () => {
    const inner = { z: 'inner value', y: 2 };
    let nested: unknown;
    const outer = {
      a: 'first',
      get b() {
        nested = fingerprint(inner, hasher);
        return 'second';
      },
      c: 'third',
    };
    expect(fingerprint(outer, hasher)).toEqual(expected({ a: 'first', b: 'second', c: 'third' }));
    expect(nested).toEqual(expected(inner));
    // And the fast path is free again afterwards.
    expect(fingerprint(inner, hasher)).toEqual(expected(inner));
  });

  it('hashes flat inputs longer than its scratch buffer, and reuses it after', () => {
    const long = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`k${i}`, 'x'.repeat(i * 40)]),
    );
    expect(fingerprint(long, hasher)).toEqual(expected(long));
    expect(fingerprint({ a: 1 }, hasher)).toEqual(expected({ a: 1 }));
    expect(fingerprint(long, hasher)).toEqual(expected(long));
  });
});
