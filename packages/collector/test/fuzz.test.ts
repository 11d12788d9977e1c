// Hostile input, property-based (fast-check): random and mutated protobuf, OTLP-shaped JSON with values of every
// type (including __proto__ keys, enum names, wrong id lengths, deep nesting), and random bodies through the
// ingest route. Nothing may throw, no answer may be 5xx, and every decoded span keeps the invariants.
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpans } from '../bench/spans.js';
import { decodeJson } from '../src/otlp/decode-json.js';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { DecodeResult } from '../src/otlp/model.js';
import { startTestCollector, type TestCollector } from './harness.js';

let bodies = 0;
const HEX = /^[0-9a-f]+$/;

/**
 * The invariants of a decode result. Checked with plain comparisons first and with `expect` (for its message)
 * only where one fails: the properties check tens of thousands of results, and `expect` on each span was a
 * large share of the file's CPU.
 */
function checkResult(r: DecodeResult): void {
  bodies++;
  if (!r.ok) {
    if (typeof r.message !== 'string') expect(typeof r.message).toBe('string');
    return;
  }
  for (const s of r.batch.spans) {
    const fine =
      typeof s.traceId === 'string' &&
      HEX.test(s.traceId) &&
      s.traceId.length === 32 &&
      typeof s.spanId === 'string' &&
      s.spanId.length === 16 &&
      Object.keys(s.attributes).length <= 512 &&
      Object.getPrototypeOf(s.attributes) === Object.prototype;
    if (fine) continue;
    expect(s.traceId).toMatch(HEX);
    expect(s.traceId).toHaveLength(32);
    expect(s.spanId).toHaveLength(16);
    expect(Object.keys(s.attributes).length).toBeLessThanOrEqual(512);
    expect(Object.getPrototypeOf(s.attributes)).toBe(Object.prototype);
  }
}

const valid = ProtobufTraceSerializer.serializeRequest(makeSpans(3)) as Uint8Array;

const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.record({ stringValue: fc.oneof(fc.string(), fc.integer()) }),
    fc.record({
      intValue: fc.oneof(fc.integer(), fc.string(), fc.constant('99999999999999999999')),
    }),
    fc.record({ boolValue: fc.oneof(fc.boolean(), fc.string()) }),
    fc.record({ doubleValue: fc.oneof(fc.double(), fc.constant('NaN')) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('v'), { maxLength: 4 }) }) }),
    fc.record({
      kvlistValue: fc.record({
        values: fc.array(fc.record({ key: fc.string(), value: tie('v') }), { maxLength: 4 }),
      }),
    }),
    fc.anything(),
  ),
})).v;

const key = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'gen_ai.tool.name',
    'toolscope.validation.issues',
  ),
);
const id = (len: number) =>
  fc.oneof(
    fc.stringMatching(new RegExp(`^[0-9a-f]{${len}}$`)),
    fc.string(),
    fc.constant('0'.repeat(len)),
    fc.integer(),
  );

const span = fc.record(
  {
    traceId: id(32),
    spanId: id(16),
    parentSpanId: fc.oneof(id(16), fc.constant('')),
    name: fc.oneof(fc.string(), fc.integer()),
    kind: fc.oneof(
      fc.integer({ min: -2, max: 9 }),
      fc.constantFrom('SPAN_KIND_SERVER', 'SPAN_KIND_NOPE'),
      fc.string(),
    ),
    startTimeUnixNano: fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String),
      fc.integer(),
      fc.string(),
    ),
    endTimeUnixNano: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String), fc.double()),
    attributes: fc.oneof(
      fc.array(fc.record({ key, value: anyValue }), { maxLength: 8 }),
      fc.anything(),
    ),
    events: fc.oneof(
      fc.array(
        fc.record({ name: fc.string(), timeUnixNano: fc.string(), attributes: fc.anything() }),
        { maxLength: 3 },
      ),
      fc.anything(),
    ),
    status: fc.oneof(
      fc.record({ code: fc.oneof(fc.integer(), fc.string()), message: fc.anything() }),
      fc.anything(),
    ),
  },
  { requiredKeys: [] },
);

const otlpJson = fc.oneof(
  fc.record({
    resourceSpans: fc.array(
      fc.record({
        resource: fc.oneof(
          fc.record({
            attributes: fc.array(fc.record({ key, value: anyValue }), { maxLength: 4 }),
          }),
          fc.anything(),
        ),
        scopeSpans: fc.array(
          fc.record({ scope: fc.anything(), spans: fc.array(span, { maxLength: 5 }) }),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 3 },
    ),
  }),
  fc.anything(),
);

describe('decoders under hostile input', () => {
  it('never throw on random bytes or on valid protobuf truncated and corrupted at random', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => checkResult(decodeProtobuf(bytes))),
      { numRuns: 30_000 },
    );
    fc.assert(
      fc.property(
        fc.nat(valid.length),
        fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), {
          maxLength: 6,
        }),
        (cut, flips) => {
          const body = Uint8Array.from(valid.subarray(0, cut));
          for (const [at, byte] of flips) if (at < body.length) body[at] = byte;
          checkResult(decodeProtobuf(body));
        },
      ),
      { numRuns: 30_000 },
    );
  }, 120_000);

  it('never throws on OTLP-shaped JSON with values of any type, nor on invalid UTF-8 or deep nesting', () => {
    fc.assert(
      fc.property(otlpJson, (value) =>
        checkResult(decodeJson(Buffer.from(JSON.stringify(value) ?? 'null'))),
      ),
      // About 1 ms a run, mostly fast-check generating `anything`: 40,000 took 44 s of the suite. Each run of
      // the suite draws a new seed, so the inputs covered keep growing across runs.
      { numRuns: 15_000 },
    );
    checkResult(decodeJson(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])));
    checkResult(decodeJson(Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)));
    const deep = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'a'.repeat(32),
                  spanId: 'b'.repeat(16),
                  attributes: [
                    {
                      key: 'k',
                      value: JSON.parse(
                        `${'{"arrayValue":{"values":['.repeat(200)}{"stringValue":"x"}${']}}'.repeat(200)}`,
                      ),
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    checkResult(decodeJson(Buffer.from(JSON.stringify(deep))));
  }, 120_000);

  it('caps 10k attributes on one span and 1 MB values, and marks them truncated', () => {
    const attributes = Array.from({ length: 10_000 }, (_, i) => ({
      key: `k${i}`,
      value: { stringValue: i === 0 ? 'x'.repeat(1_000_000) : 'v' },
    }));
    const r = decodeJson(
      Buffer.from(
        JSON.stringify({
          resourceSpans: [
            {
              scopeSpans: [
                { spans: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), attributes }] },
              ],
            },
          ],
        }),
      ),
    );
    checkResult(r);
    if (!r.ok) throw new Error(r.message);
    const s = r.batch.spans[0];
    expect(Object.keys(s?.attributes ?? {})).toHaveLength(512);
    expect(s?.droppedAttributes).toBe(10_000 - 512);
    expect(String(s?.attributes.k0).length).toBe(16 * 1024);
    expect(s?.truncatedKeys).toEqual(['k0']);
  });
});

describe('regressions found by fuzzing', () => {
  it('refuses a span whose time does not fit in 64 signed bits instead of failing the whole batch', () => {
    const body = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'a'.repeat(32),
                  spanId: 'b'.repeat(16),
                  startTimeUnixNano: '12272397953495857735',
                },
                { traceId: 'a'.repeat(32), spanId: 'c'.repeat(16), startTimeUnixNano: '1' },
              ],
            },
          ],
        },
      ],
    };
    const r = decodeJson(Buffer.from(JSON.stringify(body)));
    if (!r.ok) throw new Error(r.message);
    expect(r.batch.spans.map((s) => s.spanId)).toEqual(['c'.repeat(16)]);
    expect(r.batch.errors).toEqual(['invalid time (after the year 2262)']);
  });
});

describe('the ingest route under hostile input', () => {
  let c: TestCollector;
  beforeAll(async () => {
    c = await startTestCollector({ maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await c.stop();
    process.stdout.write(
      `\nfuzz: ${bodies} generated bodies decoded, none threw, no 5xx from the route\n`,
    );
  });

  it('answers random bodies with 200, 400, 413 or 415, never 5xx', async () => {
    const contentTypes = [
      'application/x-protobuf',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      '',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...contentTypes),
        fc.oneof(
          fc.uint8Array({ maxLength: 2048 }),
          otlpJson.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
        ),
        fc.boolean(),
        async (type, body, gzipHeader) => {
          bodies++;
          const res = await c.app.inject({
            method: 'POST',
            url: '/v1/traces',
            headers: {
              ...(type ? { 'content-type': type } : {}),
              ...(gzipHeader ? { 'content-encoding': 'gzip' } : {}),
            },
            payload: Buffer.from(body),
          });
          expect([200, 400, 413, 415]).toContain(res.statusCode);
        },
      ),
      { numRuns: 3_000 },
    );
  }, 120_000);
});
