import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

// The reference: JSON text with each object's keys in sorted order (an object cannot hold them so: integer-like
// keys always come first in property order).
const sortedJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(Reflect.get(value, k))}`).join(',')}}`;
};

describe('canonicalJson', () => {
  it('sorts keys at every level and matches JSON for plain data', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x', null], c: true } })).toBe(
      '{"a":{"c":true,"d":[1,"x",null]},"b":1}',
    );
  });

  it('is JSON.stringify of the same value with the keys of every level sorted, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(sortedJson(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on values JSON.stringify rejects', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const throwing = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    expect(canonicalJson(cyclic)).toBe('{"a":1,"self":"[circular]"}');
    expect(canonicalJson({ n: 10n, u: undefined, f: () => 1, nan: Number.NaN })).toBe(
      '{"n":"10n","nan":null}',
    );
    expect(canonicalJson(throwing)).toBe('{"x":"[unreadable]"}');
    expect(canonicalJson(undefined)).toBe('null');
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(canonicalJson(deep)).toContain('[depth]');
  });
});
