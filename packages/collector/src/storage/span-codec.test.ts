// encodeSpan writes a span's stored JSON field by field (decision 0053): the text must be the one JSON.stringify
// makes of the stored object, whatever the strings hold (quotes, control characters, lone surrogates, `__proto__`
// keys), so blocks written before and after read the same, and decodeSpans must read it back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttrMap, NormalizedSpan } from '../otlp/model.js';
import { ByteSink } from './byte-sink.js';
import { writeSpan } from './span-bytes.js';
import { decodeSpans, encodeSpan } from './span-codec.js';

/** The encoding before decision 0053: an object built per span, then JSON.stringify. */
function viaObject(span: NormalizedSpan): string {
  const stored: Record<string, unknown> = {
    s: span.spanId,
    p: span.parentSpanId,
    n: span.name,
    k: span.kind,
    st: span.startNs.toString(),
    en: span.endNs.toString(),
    sc: span.statusCode,
    sm: span.statusMessage,
    sn: span.scopeName,
    sv: span.scopeVersion,
    a: span.attributes,
  };
  if (span.events.length)
    stored.e = span.events.map((e) => ({
      timeUnixNano: e.timeNs.toString(),
      name: e.name,
      attributes: e.attributes,
    }));
  if (span.links.length) stored.l = span.links;
  if (span.truncatedKeys.length) stored.t = span.truncatedKeys;
  if (span.droppedAttributes) stored.d = span.droppedAttributes;
  return JSON.stringify(stored);
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant('"\\\n\u2028\ud800'));
const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const attrs: fc.Arbitrary<AttrMap> = fc
  .array(
    fc.tuple(
      // Integer-like keys come first in an object's key order, whatever order they were set in.
      fc.oneof(text, fc.constant('__proto__'), fc.constant('7'), fc.constant('10')),
      fc.oneof(
        text,
        fc.string({ minLength: 60, maxLength: 200 }),
        fc.string({ unit: 'binary', minLength: 60, maxLength: 200 }),
        fc.integer(),
        fc.double(),
        fc.constant(-0),
        fc.boolean(),
        fc.constant(null),
        fc.array(text),
        fc.dictionary(text, text, { maxKeys: 2 }),
      ),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => {
    const map: AttrMap = {};
    for (const [k, v] of pairs)
      Object.defineProperty(map, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return map;
  });
// The edges of writeSpan's decimal times (10^9 steps, 32-bit halves) beside any time, and times of two seconds
// that follow each other, as a batch's spans have (writeSpan keeps the last second's digits).
const nanos = fc.oneof(
  fc.bigInt({ min: 0n, max: 9_223_372_036_854_775_807n }),
  fc.bigInt({ min: 1_796_252_177_000_000_000n, max: 1_796_252_178_999_999_999n }),
  fc.constantFrom(
    0n,
    999_999_999n,
    10n ** 9n,
    10n ** 18n - 1n,
    10n ** 18n,
    2n ** 32n - 1n,
    2n ** 32n,
  ),
  fc.constantFrom(2n ** 63n - 1n, 1_796_252_177_135_081_402n, 4_294_967_296_000_000_000n),
);
const span: fc.Arbitrary<NormalizedSpan> = fc.record({
  traceId: hex(16),
  spanId: hex(8),
  parentSpanId: fc.option(hex(8), { nil: null }),
  name: text,
  kind: fc.integer({ min: 0, max: 5 }),
  startNs: nanos,
  endNs: nanos,
  statusCode: fc.integer({ min: 0, max: 2 }),
  statusMessage: text,
  attributes: attrs,
  events: fc.array(fc.record({ timeNs: nanos, name: text, attributes: attrs }), { maxLength: 2 }),
  links: fc.array(fc.record({ traceId: hex(16), spanId: hex(8), attributes: attrs }), {
    maxLength: 2,
  }),
  resource: attrs,
  scopeName: text,
  scopeVersion: text,
  truncatedKeys: fc.array(text, { maxLength: 2 }),
  droppedAttributes: fc.nat(),
});

describe('encodeSpan', () => {
  it('writes the text JSON.stringify made of the stored object, and reads back', () => {
    fc.assert(
      fc.property(span, (s) => {
        const json = encodeSpan(s);
        expect(json).toBe(viaObject(s));
        const [read] = decodeSpans(s.traceId, `[${json}]`, {});
        expect(read?.spanId).toBe(s.spanId);
        expect(read?.startNs).toBe(s.startNs);
      }),
      { numRuns: 500 },
    );
  });
});

describe('writeSpan', () => {
  it('writes encodeSpan as UTF-8, byte for byte, into a sink that grows', () => {
    const sink = new ByteSink();
    fc.assert(
      fc.property(span, fc.nat(70_000), (s, offset) => {
        // Past the end of the sink's buffer too: it grows and keeps what was written before.
        sink.reset();
        sink.ensure(offset);
        sink.at = offset;
        sink.buf[offset - 1] = 7;
        writeSpan(sink, s);
        expect(sink.bytes().subarray(offset).toString('utf8')).toBe(encodeSpan(s));
        expect(Buffer.compare(sink.bytes().subarray(offset), Buffer.from(encodeSpan(s)))).toBe(0);
        if (offset > 0) expect(sink.buf[offset - 1]).toBe(7);
      }),
      { numRuns: 500 },
    );
  });
});
