import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withCanonicalBytes } from './canonical-bytes.js';
import { canonicalJson } from './canonical-json.js';
import { createHasher } from './hashing.js';
import { outputHash } from './output-hash.js';

const bytesOf = (value: unknown): Buffer | undefined =>
  withCanonicalBytes(value, (bytes, length) => Buffer.from(bytes.subarray(0, length)));

// Any UTF-16 code unit, lone surrogates and controls included: the escapes JSON.stringify writes.
const anyText = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
});
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    anyText,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(anyText, tie('value'), { maxKeys: 4 }),
    fc.constantFrom(undefined, Number.NaN, -0, 10n, () => 1),
  ),
})).value;

describe('withCanonicalBytes', () => {
  it('writes the UTF-8 bytes of canonicalJson for any value, and the output hash stays that of the text', () => {
    const hasher = createHasher('bytes-test');
    fc.assert(
      fc.property(values, (value) => {
        expect(bytesOf(value)?.toString('hex')).toBe(
          Buffer.from(canonicalJson(value), 'utf8').toString('hex'),
        );
        expect(outputHash(value, hasher)).toBe(hasher(canonicalJson(value)));
      }),
      { numRuns: 2000 },
    );
  });

  it('follows canonicalJson on cycles, throwing getters, toJSON and depth, and grows past its buffer', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const throwing = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = [deep];
    const big = { text: 'é"\n'.repeat(100_000), when: new Date(0) };
    for (const value of [cyclic, throwing, deep, big, { toJSON: () => undefined }, undefined]) {
      expect(bytesOf(value)?.toString('utf8')).toBe(canonicalJson(value));
    }
  });

  it('leaves a walk nested in another (a toJSON that hashes) to the text path, with the same hash', () => {
    const hasher = createHasher('bytes-test');
    let inner: string | undefined;
    const value = {
      toJSON: () => {
        inner = outputHash({ b: 1, a: [2] }, hasher);
        return 'outer';
      },
    };
    expect(outputHash(value, hasher)).toBe(hasher('"outer"'));
    expect(inner).toBe(hasher('{"a":[2],"b":1}'));
  });
});
