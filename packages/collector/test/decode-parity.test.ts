// The protobuf decoder reads the wire itself (decode-proto.ts, proto-span.ts) and the JSON decoder walks parsed
// objects: the same request sent either way must decode to the same spans. Held here on the OTel SDK's own
// serializers, on generated requests with every AnyValue kind (nested past the depth cap, 64-bit integers at
// the edges, bytes, empty values), and on valid protobuf whose fields come in an unusual order.
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { makeSpans } from '../bench/spans.js';
import { decodeJson } from '../src/otlp/decode-json.js';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import { ExportTraceServiceRequest } from '../src/otlp/proto.js';

function spansOf(result: ReturnType<typeof decodeProtobuf>) {
  if (!result.ok) throw new Error(result.message);
  return result.batch;
}

/** Spans of two services and two scopes, with events, links and every attribute type. */
function variedSpans() {
  const exporter = new InMemorySpanExporter();
  for (const service of ['agent', 'tools']) {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service, 'host.cores': 2 }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    for (const scope of ['a', 'b']) {
      const tracer = provider.getTracer(scope, '1.2.3');
      const first = tracer.startSpan(`${service} ${scope} first`, {
        attributes: { s: 'x', n: 3, d: 1.5, b: true, list: ['p', 'q'], nums: [1, 2] },
      });
      first.addEvent('retry', { attempt: 2 });
      first.end();
      const second = tracer.startSpan(`${service} ${scope} second`, {
        links: [{ context: first.spanContext(), attributes: { why: 'follows' } }],
      });
      second.setStatus({ code: 2, message: 'failed' });
      second.end();
    }
  }
  return exporter.getFinishedSpans();
}

describe('protobuf decoding, span by span', () => {
  it('decodes the same spans as the OTLP/JSON of the same request', () => {
    for (const spans of [makeSpans(40, 3), variedSpans()]) {
      const proto = spansOf(
        decodeProtobuf(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array),
      );
      const json = spansOf(
        decodeJson(Buffer.from(JsonTraceSerializer.serializeRequest(spans) as Uint8Array)),
      );
      expect(proto.spans.length).toBe(spans.length);
      expect(proto).toEqual(json);
      // Attribute maps are plain objects, whichever way they were made (normalize.ts newAttrMap).
      for (const span of [...proto.spans, ...json.spans])
        for (const map of [
          span.attributes,
          span.resource,
          ...span.events.map((e) => e.attributes),
        ]) {
          expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
          expect(Object.getOwnPropertyNames(map)).toEqual(Object.keys(map));
        }
    }
  });

  it('reads a resource sent after its scopes and a scope sent after its spans', () => {
    const ordered = ProtobufTraceSerializer.serializeRequest(variedSpans()) as Uint8Array;
    const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(ordered));
    const ResourceSpans = ExportTraceServiceRequest.root.lookupType(
      'opentelemetry.proto.otlp.ResourceSpans',
    );
    const ScopeSpans = ExportTraceServiceRequest.root.lookupType(
      'opentelemetry.proto.otlp.ScopeSpans',
    );
    // Two encodings of one message, concatenated, are that message with the fields of both (protobuf's merge).
    const reversed = protobuf.Writer.create();
    for (const rs of request.resourceSpans as { resource: object; scopeSpans: object[] }[]) {
      const scopes = (rs.scopeSpans as { scope: object; spans: object[] }[]).map((ss) =>
        Buffer.concat([
          ScopeSpans.encode({ spans: ss.spans }).finish(),
          ScopeSpans.encode({ scope: ss.scope }).finish(),
        ]),
      );
      const scopesPart = protobuf.Writer.create();
      for (const bytes of scopes) scopesPart.uint32(18).bytes(bytes);
      const body = Buffer.concat([
        scopesPart.finish(),
        ResourceSpans.encode({ resource: rs.resource }).finish(),
      ]);
      reversed.uint32(10).bytes(body);
    }
    const bytes = reversed.finish();
    expect(Buffer.compare(Buffer.from(bytes), Buffer.from(ordered))).not.toBe(0);
    expect(spansOf(decodeProtobuf(bytes))).toEqual(spansOf(decodeProtobuf(ordered)));
  });

  it('refuses a request whose field runs past its message', () => {
    const ordered = ProtobufTraceSerializer.serializeRequest(makeSpans(2)) as Uint8Array;
    // The first ResourceSpans claims one byte more than the request holds.
    const body = Buffer.from(ordered);
    const long = protobuf.Reader.create(body);
    long.uint32();
    const length = long.uint32();
    const grown = protobuf.Writer.create()
      .uint32(10)
      .uint32(length + 1)
      .finish();
    const bad = Buffer.concat([grown, body.subarray(long.pos)]);
    const result = decodeProtobuf(bad);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^invalid protobuf ExportTraceServiceRequest: /);
  });
  it('decodes generated requests as the JSON decoder decodes the same requests', () => {
    let spans = 0;
    fc.assert(
      fc.property(requestArb, (request) => {
        const proto = spansOf(decodeProtobuf(toProtobuf(request)));
        const json = spansOf(decodeJson(Buffer.from(JSON.stringify(request))));
        expect(proto).toEqual(json);
        spans += proto.spans.length;
      }),
      { numRuns: 300 },
    );
    expect(spans).toBeGreaterThan(300);
  });

  it('caps depth, array items and list entries alike', () => {
    let deepArray: object = { stringValue: 'bottom' };
    let deepList: object = { intValue: '7' };
    for (let i = 0; i < 12; i++) {
      deepArray = { arrayValue: { values: [deepArray, { boolValue: true }] } };
      deepList = { kvlistValue: { values: [{ key: `k${i}`, value: deepList }] } };
    }
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ intValue: String(i) }));
    const request = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  name: 'edges',
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: [
                    { key: 'deep.array', value: deepArray },
                    { key: 'deep.list', value: deepList },
                    { key: 'items', value: { arrayValue: { values: many(300) } } },
                    {
                      key: 'entries',
                      value: {
                        kvlistValue: {
                          values: many(600).map((value, i) => ({ key: `e${i}`, value })),
                        },
                      },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const proto = spansOf(decodeProtobuf(toProtobuf(request)));
    expect(proto).toEqual(spansOf(decodeJson(Buffer.from(JSON.stringify(request)))));
    const attributes = proto.spans[0]?.attributes ?? {};
    expect(attributes.items).toHaveLength(256);
    expect(Object.keys(attributes.entries ?? {})).toHaveLength(512);
    expect(JSON.stringify(attributes['deep.array'])).toContain('null');
    expect(JSON.stringify(attributes['deep.array'])).not.toContain('bottom');
  });
});

// OTLP/JSON requests whose every value both decoders read alike (one oneof member per AnyValue, enums in range).
const keyArb = fc.oneof(fc.string(), fc.constantFrom('', '__proto__', 'gen_ai.tool.name'));
const anyValueArb: fc.Arbitrary<object> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 10 },
    fc.string({ unit: 'binary' }).map((stringValue) => ({ stringValue })),
    fc.boolean().map((boolValue) => ({ boolValue })),
    fc
      .oneof(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.integer().map(BigInt),
        fc.constantFrom(2n ** 53n - 1n, 2n ** 53n, -(2n ** 53n) + 1n, -(2n ** 53n), 2n ** 32n, -1n),
      )
      .map((n) => ({ intValue: n.toString() })),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map((d) => ({ doubleValue: Object.is(d, -0) ? 0 : d })),
    fc
      .uint8Array({ maxLength: 12 })
      .map((b) => ({ bytesValue: Buffer.from(b).toString('base64') })),
    fc.constant({}),
    fc.array(tie('v'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
    fc
      .array(fc.record({ key: keyArb, value: tie('v') }), { maxLength: 3 })
      .map((values) => ({ kvlistValue: { values } })),
  ),
})).v;
const attributesArb = fc.array(
  fc.oneof(fc.record({ key: keyArb, value: anyValueArb }), fc.record({ key: keyArb })),
  { maxLength: 5 },
);
const hexArb = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
// Mostly times storage keeps; now and then one past 2262, which both decoders refuse.
const nanosArb = fc
  .oneof(
    { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), weight: 9 },
    { arbitrary: fc.bigInt({ min: 2n ** 63n, max: 2n ** 64n - 1n }), weight: 1 },
  )
  .map(String);
const spanArb = fc.record(
  {
    traceId: hexArb(16),
    spanId: hexArb(8),
    parentSpanId: hexArb(8),
    name: fc.string({ unit: 'binary' }),
    kind: fc.integer({ min: 0, max: 5 }),
    startTimeUnixNano: nanosArb,
    endTimeUnixNano: nanosArb,
    attributes: attributesArb,
    events: fc.array(
      fc.record({ timeUnixNano: nanosArb, name: fc.string(), attributes: attributesArb }),
      { maxLength: 2 },
    ),
    links: fc.array(
      fc.record({ traceId: hexArb(16), spanId: hexArb(8), attributes: attributesArb }),
      { maxLength: 2 },
    ),
    status: fc.record({ code: fc.integer({ min: 0, max: 2 }), message: fc.string() }),
  },
  { requiredKeys: ['traceId', 'spanId', 'name', 'startTimeUnixNano', 'endTimeUnixNano'] },
);
const requestArb = fc.record({
  resourceSpans: fc.array(
    fc.record({
      resource: fc.record({ attributes: attributesArb }),
      scopeSpans: fc.array(
        fc.record({
          scope: fc.record({ name: fc.string(), version: fc.string() }),
          spans: fc.array(spanArb, { minLength: 1, maxLength: 4 }),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

/** The protobuf of an OTLP/JSON request: its hex ids as bytes; protobufjs reads the rest as JSON spells it. */
function toProtobuf(request: object): Uint8Array {
  const ids = new Set(['traceId', 'spanId', 'parentSpanId']);
  const convert = (v: unknown, key = ''): unknown => {
    if (Array.isArray(v)) return v.map((x) => convert(x));
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, convert(x, k)]));
    return typeof v === 'string' && ids.has(key) ? Buffer.from(v, 'hex') : v;
  };
  return ExportTraceServiceRequest.encode(
    ExportTraceServiceRequest.fromObject(convert(request) as object),
  ).finish();
}
