// The shared size counter (@toolscope/instrument/shared-rules measureJson, approxTokens): its bytes are exactly
// those of JSON.stringify for any JSON value, and its tokens stay near o200k_base (gpt-tokenizer, the
// reference) on the kinds of text tools return; its cost is capped on huge values.
import { approxTokens, measureJson } from '@toolscope/instrument/shared-rules';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';

const listing = Array.from({ length: 300 }, (_, i) => ({
  id: `item-${i}`,
  title: `A product called thing ${i}`,
  price: i * 1.5,
  tags: ['a', 'b'],
}));
const orders = {
  orders: Array.from({ length: 100 }, (_, i) => ({
    orderId: `O-${10000 + i}`,
    customerId: `C-${i % 17}`,
    status: ['pending', 'shipped', 'delivered'][i % 3],
    total: Math.round(i * 37.13 * 100) / 100,
    createdAt: new Date(1e12 + i * 3.6e6).toISOString(),
  })),
};
const schema = {
  name: 'get_order',
  description: 'Fetch one order of a customer by id, with its lines and shipping status.',
  inputSchema: {
    type: 'object',
    properties: {
      customerId: { type: 'string', minLength: 1, description: 'The customer id, e.g. C-1042' },
      orderId: { type: 'string', pattern: '^O-[0-9]+$' },
    },
    required: ['customerId', 'orderId'],
  },
};

describe('measureJson', () => {
  it('counts the UTF-8 bytes of JSON.stringify exactly, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(measureJson(v).bytes).toBe(Buffer.byteLength(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });

  it('writes what JSON writes: undefined left out of objects and null in arrays, toJSON, escapes', () => {
    const value = {
      a: undefined,
      b: [undefined, () => 1, 'q"u\\o\nte\u0001', '\ud800 lone', '😀 pair'],
      when: new Date(0),
      n: [Number.NaN, -0, 1e21],
    };
    expect(measureJson(value).bytes).toBe(Buffer.byteLength(JSON.stringify(value)));
  });

  it('stays near o200k on JSON data and schemas, and on text', () => {
    const ratio = (ours: number, theirs: number) => ours / theirs;
    for (const [name, v] of Object.entries({ listing, orders, schema })) {
      const r = ratio(measureJson(v).tokens, countTokens(JSON.stringify(v)));
      expect(r, name).toBeGreaterThan(0.75);
      expect(r, name).toBeLessThan(1.3);
    }
    const texts = {
      prose:
        'Tool contracts are versioned, diffed and weighed before they reach the model. '.repeat(30),
      code: 'function add(a, b) {\n  return a + b;\n}\nconst xs = [1, 2, 3].map((x) => x * 2);\n'.repeat(
        20,
      ),
      cjk: '工具调用的契约需要版本管理。'.repeat(40),
    };
    for (const [name, text] of Object.entries(texts)) {
      const r = ratio(approxTokens(text), countTokens(text));
      expect(r, name).toBeGreaterThan(0.7);
      expect(r, name).toBeLessThan(1.3);
    }
  });

  it('caps the work on a huge result: bytes exact, tokens scaled and marked estimated', () => {
    const huge = { text: 'word '.repeat(400_000) };
    const m = measureJson(huge);
    expect(m.bytes).toBe(Buffer.byteLength(JSON.stringify(huge)));
    expect(m.estimated).toBe(true);
    // "word " is one token per word in o200k: 400k words, give or take the scaling.
    expect(m.tokens).toBeGreaterThan(300_000);
    expect(m.tokens).toBeLessThan(500_000);
    expect(measureJson(listing).estimated).toBe(false);
  });
});
