import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { fingerprint } from './fingerprint.js';
import { inputShape } from './input-shape.js';

describe('fingerprint', () => {
  it('agrees with the general canonical JSON and shape on any JSON value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(
            fc.string(),
            fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null)),
          ),
        ),
        (value) => {
          expect(fingerprint(value)).toEqual({
            canonical: canonicalJson(value),
            shape: inputShape(value),
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('takes flat objects with unusual keys or values through the general path', () => {
    for (const value of [
      { 'a b': 1 },
      { a: undefined, b: 1 },
      { a: 1n },
      { a: Number.NaN },
      { __proto__: null, a: 1 },
    ]) {
      expect(fingerprint(value)).toEqual({
        canonical: canonicalJson(value),
        shape: inputShape(value),
      });
    }
  });
});
