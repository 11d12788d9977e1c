// OTLP/HTTP protobuf body → normalized spans. protobufjs does the wire decoding; this file only walks the
// decoded messages, which are typed `unknown` and checked field by field.
import { type AttrValue, type DecodeResult, LIMITS } from './model.js';
import type { AttrCollector } from './normalize.js';
import { ExportTraceServiceRequest, Long } from './proto.js';
import {
  arrayValues,
  collectAttributes,
  kvlistValues,
  rec,
  str,
  type WireReader,
  walkResourceSpans,
} from './walk.js';

function hex(v: unknown): string {
  // protobufjs's BufferReader hands out Buffer slices: no copy or wrapper needed for those.
  if (Buffer.isBuffer(v)) return v.toString('hex');
  return v instanceof Uint8Array
    ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')
    : '';
}
function nanos(v: unknown): bigint {
  // From the two 32-bit halves: Long.toString() divides and was a tenth of the decode time.
  if (Long.isLong(v))
    return (BigInt((v as Long).high >>> 0) << 32n) | BigInt((v as Long).low >>> 0);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.trunc(v));
  return 0n;
}
function int(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) ? v : 0;
}

function anyValue(v: unknown, depth: number): AttrValue | undefined {
  const o = rec(v);
  if (!o) return undefined;
  // Decoded fields are own properties; the prototype holds proto3 defaults for every oneof member. No helper
  // closure here: this runs for every attribute, and a closure per call showed in profiles.
  if (Object.hasOwn(o, 'stringValue')) return str(o.stringValue);
  if (Object.hasOwn(o, 'boolValue')) return o.boolValue === true;
  if (Object.hasOwn(o, 'intValue')) {
    const n = o.intValue;
    if (Long.isLong(n)) {
      const l = n as Long;
      const safe =
        l.lessThanOrEqual(Number.MAX_SAFE_INTEGER) && l.greaterThanOrEqual(Number.MIN_SAFE_INTEGER);
      return safe ? l.toNumber() : l.toString();
    }
    return typeof n === 'number' ? n : null;
  }
  if (Object.hasOwn(o, 'doubleValue'))
    return typeof o.doubleValue === 'number' ? o.doubleValue : null;
  if (Object.hasOwn(o, 'bytesValue'))
    return o.bytesValue instanceof Uint8Array ? Buffer.from(o.bytesValue).toString('base64') : null;
  if (depth >= LIMITS.maxDepth) return null;
  if (Object.hasOwn(o, 'arrayValue'))
    return arrayValues(rec(o.arrayValue)?.values, depth, anyValue);
  if (Object.hasOwn(o, 'kvlistValue'))
    return kvlistValues(rec(o.kvlistValue)?.values, depth, anyValue);
  return null;
}

function attributes(list: unknown, collector: AttrCollector): void {
  collectAttributes(list, collector, anyValue);
}

const PROTO: WireReader = {
  // protobufjs decodes into lowerCamelCase fields only.
  field: (o, camel) => o?.[camel],
  id: hex,
  nanos,
  kind: int,
  statusCode: int,
  attributes,
};

/** Decodes an `ExportTraceServiceRequest`; truncated or malformed protobuf is an error, not a crash. */
export function decodeProtobuf(body: Uint8Array): DecodeResult {
  let message: unknown;
  try {
    // A Buffer gets protobufjs's BufferReader, which reads strings natively instead of in JS.
    message = ExportTraceServiceRequest.decode(
      Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    );
  } catch (error) {
    return {
      ok: false,
      message: `invalid protobuf ExportTraceServiceRequest: ${error instanceof Error ? error.message : 'decode failed'}`,
    };
  }
  return { ok: true, batch: walkResourceSpans(rec(message)?.resourceSpans, PROTO) };
}
