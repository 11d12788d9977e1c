import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and matches JSON for plain data', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x', null], c: true } })).toBe(
      '{"a":{"c":true,"d":[1,"x",null]},"b":1}',
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
