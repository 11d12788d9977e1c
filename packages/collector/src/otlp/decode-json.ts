// OTLP/HTTP JSON body → normalized spans, per the OTLP JSON mapping: hex ids, 64-bit integers as strings or
// numbers, enums as integers (names are accepted too), lowerCamelCase keys (snake_case accepted), unknown
// fields ignored. An explicit decoder: input is untrusted and often huge, so it is walked once, by hand.
import {
  type AttrValue,
  type DecodedBatch,
  type DecodeResult,
  LIMITS,
  type SpanEvent,
  type SpanLink,
} from './model.js';
import { AttrCollector, assembleSpan, clipName, noteError, setAttr } from './normalize.js';

type Rec = Record<string, unknown>;
const EMPTY: unknown[] = [];

function rec(v: unknown): Rec | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined;
}
/** A field by its lowerCamelCase name or its proto (snake_case) name. */
function field(o: Rec | undefined, camel: string, snake: string): unknown {
  if (!o) return undefined;
  return Object.hasOwn(o, camel) ? o[camel] : Object.hasOwn(o, snake) ? o[snake] : undefined;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
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
  if (array)
    return arr(array.values)
      .slice(0, LIMITS.maxArrayItems)
      .map((item) => anyValue(item, depth + 1) ?? null);
  const kv = rec(field(o, 'kvlistValue', 'kvlist_value'));
  if (kv) {
    const out: Record<string, AttrValue> = {};
    for (const entry of arr(kv.values).slice(0, LIMITS.maxAttributesPerSpan)) {
      const e = rec(entry);
      if (!e || typeof e.key !== 'string') continue;
      const value = anyValue(e.value, depth + 1);
      if (value !== undefined) setAttr(out, e.key, value);
    }
    return out;
  }
  return null;
}

function attributes(list: unknown, collector: AttrCollector): void {
  for (const entry of arr(list)) {
    const e = rec(entry);
    if (!e || typeof e.key !== 'string') continue;
    collector.add(e.key, anyValue(e.value, 0));
  }
}

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
  const batch: DecodedBatch = { spans: [], rejected: 0, errors: [] };
  for (const rsItem of arr(resourceSpans)) {
    const rs = rec(rsItem);
    const resource = new AttrCollector();
    attributes(rec(rs?.resource)?.attributes, resource);
    for (const ssItem of arr(field(rs, 'scopeSpans', 'scope_spans'))) {
      const ss = rec(ssItem);
      const scope = rec(ss?.scope);
      for (const spanItem of arr(ss?.spans)) {
        const s = rec(spanItem);
        if (!s) {
          batch.rejected++;
          noteError(batch.errors, 'span is not an object');
          continue;
        }
        const collector = new AttrCollector();
        attributes(s.attributes, collector);
        const events: SpanEvent[] = arr(s.events)
          .slice(0, LIMITS.maxEventsPerSpan)
          .map((ev) => {
            const e = rec(ev);
            const c = new AttrCollector(64);
            attributes(e?.attributes, c);
            return {
              timeNs: nanos(field(e, 'timeUnixNano', 'time_unix_nano')),
              name: clipName(str(e?.name)),
              attributes: c.map,
            };
          });
        const links: SpanLink[] = arr(s.links)
          .slice(0, LIMITS.maxLinksPerSpan)
          .map((lk) => {
            const l = rec(lk);
            const c = new AttrCollector(64);
            attributes(l?.attributes, c);
            return {
              traceId: hexId(field(l, 'traceId', 'trace_id')),
              spanId: hexId(field(l, 'spanId', 'span_id')),
              attributes: c.map,
            };
          });
        const parent = hexId(field(s, 'parentSpanId', 'parent_span_id'));
        const status = rec(s.status);
        const built = assembleSpan({
          traceId: hexId(field(s, 'traceId', 'trace_id')),
          spanId: hexId(field(s, 'spanId', 'span_id')),
          parentSpanId: parent === '' ? null : parent,
          name: clipName(str(s.name)),
          kind: enumValue(s.kind, KIND_NAMES, 5),
          startNs: nanos(field(s, 'startTimeUnixNano', 'start_time_unix_nano')),
          endNs: nanos(field(s, 'endTimeUnixNano', 'end_time_unix_nano')),
          statusCode: enumValue(status?.code, STATUS_NAMES, 2),
          statusMessage: clipName(str(status?.message)),
          attributes: collector.map,
          events,
          links,
          resource: resource.map,
          scopeName: clipName(str(scope?.name)),
          scopeVersion: clipName(str(scope?.version)),
          collector,
        });
        if ('span' in built) batch.spans.push(built.span);
        else {
          batch.rejected++;
          noteError(batch.errors, built.error);
        }
      }
    }
  }
  return { ok: true, batch };
}
