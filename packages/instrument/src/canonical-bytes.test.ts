import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withCanonicalBytes } from './canonical-bytes.js';
import { canonicalJson } from './canonical-json.js';
import { createHasher } from './hashing.js';
import { mcpOutputFacts, outputFacts } from './output-facts.js';
import { mcpOutputHash, outputHash } from './output-hash.js';
import {
  mcpOutputAttributes,
  measureJson,
  outputAttributes,
  TOKEN_SCAN_CHARS,
} from './output-size.js';
import * as sc from './semconv.js';

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

describe('one walk for the size and the hash', () => {
  const hasher = createHasher('facts-test');
  const twoWalks = (value: unknown) => ({
    ...outputAttributes(measureJson(value)),
    [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: outputHash(value, hasher),
  });
  const mcpTwoWalks = (result: unknown) => ({
    ...mcpOutputAttributes(result),
    [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: mcpOutputHash(result, hasher),
  });
  const results = fc.record(
    {
      content: fc.oneof(fc.array(values, { maxLength: 3 }), values),
      structuredContent: values,
      isError: fc.boolean(),
    },
    { requiredKeys: [] },
  );

  it('sets what measureJson and outputHash give, for any value and any MCP result', () => {
    fc.assert(
      fc.property(values, results, (value, result) => {
        expect(outputFacts(value, hasher)).toEqual(twoWalks(value));
        expect(mcpOutputFacts(result, hasher)).toEqual(mcpTwoWalks(result));
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to measuring on its own where the two rules part', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: unknown = 'leaf';
    for (let i = 0; i < 70; i++) deep = { d: deep };
    // JSON.stringify calls one toJSON, canonicalJson follows the next one too.
    const chained = { toJSON: () => ({ toJSON: () => 'inner', x: 1 }) };
    const cases: unknown[] = [
      cyclic,
      deep,
      chained,
      {
        when: new Date(0),
        big: 12n,
        gone: undefined,
        list: [undefined, () => 1, Number.NaN, -Infinity],
      },
      { long: 'ab1,é\ud800'.repeat(TOKEN_SCAN_CHARS / 4), tail: 'x' },
      { lone: '\udc00\ud83d\ude00\ud800', ctl: '\u0001\n"\\' },
      '[unreadable]',
      undefined,
    ];
    for (const value of cases) {
      expect(outputFacts(value, hasher)).toEqual(twoWalks(value));
      expect(mcpOutputFacts({ content: [value], structuredContent: value }, hasher)).toEqual(
        mcpTwoWalks({ content: [value], structuredContent: value }),
      );
    }
    expect(outputFacts(cyclic, hasher)[sc.ATTR_TOOLSCOPE_OUTPUT_ESTIMATED]).toBe(true);
  });

  it('throws where measureJson throws (a throwing getter or keys), as the two walks did', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no keys');
        },
      },
    );
    const getter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    for (const value of [hostile, getter]) {
      expect(() => measureJson(value)).toThrow();
      expect(() => outputFacts(value, hasher)).toThrow();
    }
  });

  it('counts the same tokens whatever the order of the keys (whole units, no float sums)', () => {
    fc.assert(
      fc.property(fc.dictionary(anyText, values, { maxKeys: 12 }), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(measureJson(reversed)).toEqual(measureJson(record));
        expect(outputFacts(reversed, hasher)).toEqual(outputFacts(record, hasher));
      }),
      { numRuns: 500 },
    );
  });
});
