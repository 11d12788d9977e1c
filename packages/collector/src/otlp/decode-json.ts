// OTLP/HTTP JSON body → normalized spans, per the OTLP JSON mapping: hex ids, 64-bit integers as strings or
// numbers, enums as integers (names are accepted too), lowerCamelCase keys (snake_case accepted), unknown
// fields ignored. An explicit decoder: input is untrusted and often huge, so it is walked once, by hand.
import { type AttrValue, type DecodeResult, LIMITS } from './model.js';
import type { AttrCollector } from './normalize.js';
import {
  arrayValues,
  collectAttributes,
  kvlistValues,
  type Rec,
  rec,
  type WireReader,
  walkResourceSpans,
} from './walk.js';

/** A field by its lowerCamelCase name or its proto (snake_case) name. */
function field(o: Rec | undefined, camel: string, snake: string): unknown {
  if (!o) return undefined;
  return Object.hasOwn(o, camel) ? o[camel] : Object.hasOwn(o, snake) ? o[snake] : undefined;
}
function hexId(v: unknown): string {
  return typeof v === 'string' ? v.toLowerCase() : '';
}
const DIGITS = /^\d{1,20}$/;
function nanos(v: unknown): bigint {
  if (typeof v === 'string' && DIGITS.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.trunc(v));
  return 0n;
}
const KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_NAMES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};
function enumValue(v: unknown, names: Record<string, number>, max: number): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max) return v;
  if (typeof v === 'string' && Object.hasOwn(names, v)) return names[v] ?? 0;
  return 0;
}

function anyValue(v: unknown, depth: number): AttrValue | undefined {
  const o = rec(v);
  if (!o) return undefined;
  const s = field(o, 'stringValue', 'string_value');
  if (typeof s === 'string') return s;
  const b = field(o, 'boolValue', 'bool_value');
  if (typeof b === 'boolean') return b;
  const i = field(o, 'intValue', 'int_value');
  if (typeof i === 'number' && Number.isFinite(i)) return Math.trunc(i);
  if (typeof i === 'string' && /^-?\d{1,20}$/.test(i)) {
    const n = Number(i);
    return Number.isSafeInteger(n) ? n : i;
  }
  const d = field(o, 'doubleValue', 'double_value');
  if (typeof d === 'number') return d;
  if (typeof d === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(d)) return d;
  const bytes = field(o, 'bytesValue', 'bytes_value');
  if (typeof bytes === 'string') return bytes;
  if (depth >= LIMITS.maxDepth) return null;
  const array = rec(field(o, 'arrayValue', 'array_value'));
  if (array) return arrayValues(array.values, depth, anyValue);
  const kv = rec(field(o, 'kvlistValue', 'kvlist_value'));
  if (kv) return kvlistValues(kv.values, depth, anyValue);
  return null;
}

function attributes(list: unknown, collector: AttrCollector): void {
  collectAttributes(list, collector, anyValue);
}

const JSON_READER: WireReader = {
  field,
  id: hexId,
  nanos,
  kind: (v) => enumValue(v, KIND_NAMES, 5),
  statusCode: (v) => enumValue(v, STATUS_NAMES, 2),
  attributes,
};

/** Decodes an OTLP/JSON `ExportTraceServiceRequest` body. */
export function decodeJson(body: Buffer): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return {
      ok: false,
      message: `invalid JSON: ${error instanceof Error ? error.message : 'parse failed'}`,
    };
  }
  const root = rec(parsed);
  if (!root)
    return {
      ok: false,
      message: 'invalid OTLP JSON: the body must be an object with resourceSpans',
    };
  const resourceSpans = field(root, 'resourceSpans', 'resource_spans');
  if (resourceSpans !== undefined && !Array.isArray(resourceSpans)) {
    return { ok: false, message: 'invalid OTLP JSON: resourceSpans must be an array' };
  }
  return { ok: true, batch: walkResourceSpans(resourceSpans, JSON_READER) };
}
