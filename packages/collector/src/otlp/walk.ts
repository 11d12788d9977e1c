// The walk over resourceSpans → scopeSpans → spans of a parsed request (OTLP/JSON; the protobuf decoder reads
// the wire itself and shares finishSpan); the decoder supplies how its format spells fields, ids, times and enums.
import {
  type AttrMap,
  type AttrValue,
  type DecodedBatch,
  LIMITS,
  type NormalizedSpan,
  type SpanEvent,
  type SpanLink,
} from './model.js';
import { AttrCollector, clipName, noteError, setAttr, spanProblem } from './normalize.js';

export type Rec = Record<string, unknown>;

export type WireReader = {
  /** A field by its lowerCamelCase name (JSON also accepts the proto snake_case name). */
  field(o: Rec | undefined, camel: string, snake: string): unknown;
  id(v: unknown): string;
  nanos(v: unknown): bigint;
  kind(v: unknown): number;
  statusCode(v: unknown): number;
  attributes(list: unknown, into: AttrCollector): void;
};

const EMPTY: unknown[] = [];

export function rec(v: unknown): Rec | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Reads one AnyValue in a wire format's spelling. */
type AnyValueReader = (v: unknown, depth: number) => AttrValue | undefined;

/** The items of an ArrayValue, capped. */
export function arrayValues(values: unknown, depth: number, read: AnyValueReader): AttrValue[] {
  return arr(values)
    .slice(0, LIMITS.maxArrayItems)
    .map((item) => read(item, depth + 1) ?? null);
}

/** The entries of a KeyValueList, capped; keys stay own data properties. */
export function kvlistValues(
  values: unknown,
  depth: number,
  read: AnyValueReader,
): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const entry of arr(values).slice(0, LIMITS.maxAttributesPerSpan)) {
    const e = rec(entry);
    if (!e || typeof e.key !== 'string') continue;
    const value = read(e.value, depth + 1);
    if (value !== undefined) setAttr(out, e.key, value);
  }
  return out;
}

/** A repeated KeyValue field into an attribute collector. */
export function collectAttributes(list: unknown, into: AttrCollector, read: AnyValueReader): void {
  for (const entry of arr(list)) {
    const e = rec(entry);
    if (!e || typeof e.key !== 'string') continue;
    into.add(e.key, read(e.value, 0));
  }
}

// Events and links are read by top-level loops, not per-span closures: this runs for every span, and under tsx
// (which keeps function names) every closure created costs a defineProperty.
const NO_EVENTS: SpanEvent[] = [];
const NO_LINKS: SpanLink[] = [];

/** The first `max` items of a repeated message field, each read with its attributes collected (capped at 64). */
function readCapped<T>(
  list: unknown,
  max: number,
  r: WireReader,
  none: T[],
  read: (o: Rec | undefined, attributes: AttrCollector, r: WireReader) => T,
): T[] {
  const items = arr(list);
  if (items.length === 0) return none;
  const out: T[] = [];
  const n = Math.min(items.length, max);
  for (let i = 0; i < n; i++) {
    const o = rec(items[i]);
    const c = new AttrCollector(64);
    r.attributes(o?.attributes, c);
    out.push(read(o, c, r));
  }
  return out;
}

function readEvent(e: Rec | undefined, c: AttrCollector, r: WireReader): SpanEvent {
  return {
    timeNs: r.nanos(r.field(e, 'timeUnixNano', 'time_unix_nano')),
    name: clipName(str(e?.name)),
    attributes: c.map,
  };
}

function readLink(l: Rec | undefined, c: AttrCollector, r: WireReader): SpanLink {
  return {
    traceId: r.id(r.field(l, 'traceId', 'trace_id')),
    spanId: r.id(r.field(l, 'spanId', 'span_id')),
    attributes: c.map,
  };
}

export function walkResourceSpans(resourceSpans: unknown, r: WireReader): DecodedBatch {
  const batch: DecodedBatch = { spans: [], rejected: 0, errors: [] };
  for (const rsItem of arr(resourceSpans)) {
    const rs = rec(rsItem);
    const resource = resourceOf(rec(rs?.resource), r);
    for (const ssItem of arr(r.field(rs, 'scopeSpans', 'scope_spans'))) {
      const ss = rec(ssItem);
      const scope = rec(ss?.scope);
      for (const spanItem of arr(ss?.spans)) walkSpan(spanItem, resource, scope, r, batch);
    }
  }
  return batch;
}

/** A resource's attributes, shared by the spans under it. */
function resourceOf(resource: Rec | undefined, r: WireReader): AttrMap {
  const collector = new AttrCollector();
  r.attributes(resource?.attributes, collector);
  return collector.map;
}

/** One span of a scope into `batch`: normalized, or counted as rejected with its reason. */
function walkSpan(
  spanItem: unknown,
  resource: AttrMap,
  scope: Rec | undefined,
  r: WireReader,
  batch: DecodedBatch,
): void {
  const s = rec(spanItem);
  if (!s) {
    batch.rejected++;
    noteError(batch.errors, 'span is not an object');
    return;
  }
  const collector = new AttrCollector();
  r.attributes(s.attributes, collector);
  const events = readCapped(s.events, LIMITS.maxEventsPerSpan, r, NO_EVENTS, readEvent);
  const links = readCapped(s.links, LIMITS.maxLinksPerSpan, r, NO_LINKS, readLink);
  const parent = r.id(r.field(s, 'parentSpanId', 'parent_span_id'));
  const status = rec(s.status);
  finishSpan(batch, {
    traceId: r.id(r.field(s, 'traceId', 'trace_id')),
    spanId: r.id(r.field(s, 'spanId', 'span_id')),
    parentSpanId: parent === '' ? null : parent,
    name: clipName(str(s.name)),
    kind: r.kind(s.kind),
    startNs: r.nanos(r.field(s, 'startTimeUnixNano', 'start_time_unix_nano')),
    endNs: r.nanos(r.field(s, 'endTimeUnixNano', 'end_time_unix_nano')),
    statusCode: r.statusCode(status?.code),
    statusMessage: clipName(str(status?.message)),
    attributes: collector.map,
    events,
    links,
    resource,
    scopeName: clipName(str(scope?.name)),
    scopeVersion: clipName(str(scope?.version)),
    truncatedKeys: collector.truncated,
    droppedAttributes: collector.dropped,
  });
}

/** A decoded span into `batch`, or a rejection with its reason when its ids or times make it unusable. */
export function finishSpan(batch: DecodedBatch, span: NormalizedSpan): void {
  const problem = spanProblem(span);
  if (problem === null) batch.spans.push(span);
  else {
    batch.rejected++;
    noteError(batch.errors, problem);
  }
}
