// `.call` of any tool with any `unknown` input never throws (fast-check): values of every JSON and non-JSON
// type, plus the hostile ones generators do not make by themselves (throwing getters, a Proxy that throws on
// every trap, cycles, BigInt, symbols, 100k-deep nesting, `__proto__` keys), with capture on (the redactor walks
// the input) and off, through tools with strict objects, refinements, transforms, sensitive fields, retries and
// idempotency keys. Every call answers with the envelope and ends exactly one span.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, sensitive, type ToolResult } from '../src/index.js';
import { createTracing } from './tracing.js';

const CODES = ['INVALID_INPUT', 'INVALID_OUTPUT', 'RETRYABLE', 'REJECTED', 'FAILED'];

function hostileValues(): unknown[] {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const getter = Object.defineProperty({}, 'customerId', {
    enumerable: true,
    get() {
      throw new Error('getter says no');
    },
  });
  const trap = () => {
    throw new Error('proxy says no');
  };
  const proxy = new Proxy(
    {},
    { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap },
  );
  let deep: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  let deepObject: unknown = {};
  for (let i = 0; i < 100_000; i++) deepObject = { customerId: deepObject };
  return [
    cyclic,
    getter,
    proxy,
    deep,
    deepObject,
    10n ** 30n,
    Symbol('s'),
    { [Symbol('k')]: 1, customerId: 'c' },
    () => 'function',
    JSON.parse('{"__proto__": {"polluted": true}, "customerId": "c"}'),
    { constructor: { prototype: { polluted: true } }, customerId: 'c' },
    new Date(Number.NaN),
    new Uint8Array([1, 2, 3]),
    new Map([['customerId', 'c']]),
    Object.create(null),
    { customerId: '\uD800', email: 'x@example.com', note: '\u0000'.repeat(10) },
    { sku: 'a'.repeat(1_000_000), quantity: 1 },
    Number.NaN,
    undefined,
    null,
  ];
}

function tools(capture: boolean) {
  const tracing = createTracing();
  const common = {
    tracerProvider: tracing.provider,
    hashKey: 'fuzz',
    capture,
    description: 'fuzz target',
  };
  let n = 0;
  const list = [
    defineTool({
      ...common,
      name: 'get_order',
      version: '1',
      effect: 'read',
      input: z
        .object({ customerId: z.string().min(1), includeHistory: z.boolean().default(false) })
        .strict(),
      output: z.object({ customerId: z.string() }),
      retry: { maxAttempts: 3, backoffMs: 0 },
      execute: ({ customerId }) => {
        n++;
        if (n % 7 === 0) throw Object.assign(new Error('upstream 503'), { status: 503 });
        return { customerId };
      },
    }),
    defineTool({
      ...common,
      name: 'catalogue_list',
      version: '2',
      effect: 'read',
      input: z
        .object({
          minPrice: z.number().min(0),
          maxPrice: z.number().min(0),
          token: sensitive(z.string()).optional(),
        })
        .refine((v) => v.minPrice <= v.maxPrice, {
          message: 'minPrice must not exceed maxPrice',
          path: ['minPrice'],
        })
        .transform((v) => ({ ...v, span: v.maxPrice - v.minPrice })),
      output: z.object({ items: z.array(z.string()) }),
      execute: ({ span }, ctx) =>
        span > 1e6 ? ctx.reject('too_wide', 'narrow the range') : { items: [] },
    }),
    defineTool({
      ...common,
      name: 'order_intent',
      version: '1',
      effect: 'write',
      input: z.object({ sku: z.string(), quantity: z.number().int().positive() }).strict(),
      // Wrong on purpose for some inputs: output validation failing must be an envelope too.
      output: z.object({ intentId: z.string(), status: z.literal('created') }),
      execute: ({ quantity }, ctx) => {
        ctx.markPartialEffect();
        if (quantity > 5) return { intentId: 1 } as never;
        return { intentId: `int_${quantity}`, status: 'created' as const };
      },
    }),
  ];
  return { list, tracing };
}

async function callSafely(
  tool: { call(input: unknown, options?: never): Promise<ToolResult<unknown>> },
  input: unknown,
  options: unknown,
): Promise<ToolResult<unknown>> {
  // A synchronous throw or a rejected promise both fail the property.
  return await tool.call(input, options as never);
}

function checkEnvelope(result: ToolResult<unknown>) {
  expect(typeof result.ok).toBe('boolean');
  if (!result.ok) {
    expect(CODES).toContain(result.code);
    expect(typeof result.retryable).toBe('boolean');
    expect(typeof result.partialEffect).toBe('boolean');
    expect(typeof result.message).toBe('string');
  }
}

const options = fc.oneof(
  fc.constant(undefined),
  fc.anything(),
  fc.record(
    {
      idempotencyKey: fc.oneof(fc.string(), fc.anything()),
      conversationId: fc.oneof(fc.string(), fc.anything()),
      callId: fc.oneof(fc.string(), fc.anything()),
      attempt: fc.oneof(fc.integer(), fc.anything()),
      timeoutMs: fc.oneof(fc.integer(), fc.double(), fc.anything()),
    },
    { requiredKeys: [] },
  ),
);

const input = fc.oneof(
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    withUnicodeString: true,
  }),
  fc.record({ customerId: fc.anything(), includeHistory: fc.anything() }, { requiredKeys: [] }),
  fc.record(
    { minPrice: fc.anything(), maxPrice: fc.anything(), token: fc.anything() },
    { requiredKeys: [] },
  ),
  fc.record({
    sku: fc.oneof(fc.string(), fc.anything()),
    quantity: fc.oneof(fc.integer(), fc.anything()),
  }),
);

describe('.call with arbitrary input', () => {
  for (const capture of [false, true]) {
    it(`answers every input with the envelope and one span, never a throw (capture ${capture ? 'on' : 'off'})`, async () => {
      const { list, tracing } = tools(capture);
      // fast-check inspects the values it generates (a Proxy that throws would fail it, not us): the hostile
      // values are picked by index inside the property instead, about one call in five.
      const hostile = hostileValues();
      const pick = fc.integer({ min: -4 * hostile.length, max: hostile.length - 1 });
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(list.length - 1),
          input,
          pick,
          options,
          async (which, generated, h, opts) => {
            const value = h >= 0 ? hostile[h] : generated;
            const tool = list[which] as (typeof list)[number];
            const before = tracing.spans().length;
            const result = await callSafely(tool as never, value, opts);
            checkEnvelope(result);
            expect(tracing.spans().length).toBe(before + 1);
            calls++;
          },
        ),
        { numRuns: 3000 },
      );
      process.stdout.write(
        `\n.call fuzz (capture ${capture ? 'on' : 'off'}): ${calls} calls, none threw\n`,
      );
      // Every hostile value on every tool, not only when the generator happens to pick it.
      for (const value of hostile)
        for (const tool of list) checkEnvelope(await callSafely(tool as never, value, undefined));
    }, 120_000);
  }
});
