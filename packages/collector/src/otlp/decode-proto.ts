// OTLP/HTTP protobuf body → normalized spans. The request is read from the wire field by field: resource,
// scope and KeyValue framing here, each span by proto-span.ts, which says why protobufjs's message objects are
// not made. protobufjs's Reader reads the primitives.
import type { AttrMap, DecodedBatch, DecodeResult } from './model.js';
import { AttrCollector } from './normalize.js';
import { ProtoReader } from './proto.js';
import { forgetRequest, readSpan, type Scope } from './proto-span.js';
import { stringOf } from './proto-strings.js';
import { closes, ends, keyValue, type Wire } from './proto-values.js';

// Tags (field number << 3 | 2, length-delimited) of the messages around the spans.
const TAG_RESOURCE_SPANS = 10; // ExportTraceServiceRequest.resource_spans = 1
const TAG_RESOURCE = 10; // ResourceSpans.resource = 1
const TAG_SCOPE_SPANS = 18; // ResourceSpans.scope_spans = 2
const TAG_RESOURCE_ATTRIBUTE = 10; // Resource.attributes = 1
const TAG_SCOPE = 10; // ScopeSpans.scope = 1
const TAG_SPAN = 18; // ScopeSpans.spans = 2
const TAG_SCOPE_NAME = 10; // InstrumentationScope.name = 1
const TAG_SCOPE_VERSION = 18; // InstrumentationScope.version = 2

/** Decodes an `ExportTraceServiceRequest`; truncated or malformed protobuf is an error, not a crash. */
export function decodeProtobuf(body: Uint8Array): DecodeResult {
  const batch: DecodedBatch = { spans: [], rejected: 0, errors: [] };
  try {
    // A Buffer gets protobufjs's BufferReader, which reads strings natively instead of in JS.
    const reader = ProtoReader.create(
      Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    ) as Wire;
    each(reader, reader.len, TAG_RESOURCE_SPANS, (end) => resourceSpans(reader, end, batch));
  } catch (error) {
    return {
      ok: false,
      message: `invalid protobuf ExportTraceServiceRequest: ${error instanceof Error ? error.message : 'decode failed'}`,
    };
  } finally {
    forgetRequest();
  }
  return { ok: true, batch };
}

/** Calls `read` for each field `tag` up to `end` with the field's end, and skips every other field. */
function each(r: Wire, end: number, tag: number, read: (end: number) => void): void {
  while (r.pos < end) {
    const t = r.uint32();
    if (t !== tag) {
      r.skipType(t & 7);
      continue;
    }
    const fieldEnd = ends(r);
    if (fieldEnd > end) throw new RangeError('a field runs past its message');
    read(fieldEnd);
    r.pos = fieldEnd;
  }
  closes(r, end);
}

/**
 * One ResourceSpans: its resource first, wherever it is in the message (the spans need it), then its scopes.
 * A resource or scope sent twice is the last one, as protobufjs decoded it.
 */
function resourceSpans(r: Wire, end: number, batch: DecodedBatch): void {
  const start = r.pos;
  let resource: AttrMap = {};
  each(r, end, TAG_RESOURCE, (resourceEnd) => {
    const c = new AttrCollector();
    each(r, resourceEnd, TAG_RESOURCE_ATTRIBUTE, (kvEnd) => keyValue(r, kvEnd, c));
    resource = c.map;
  });
  r.pos = start;
  each(r, end, TAG_SCOPE_SPANS, (scopeEnd) => scopeSpans(r, scopeEnd, resource, batch));
}

function scopeSpans(r: Wire, end: number, resource: AttrMap, batch: DecodedBatch): void {
  const start = r.pos;
  let scope: Scope = { name: '', version: '' };
  each(r, end, TAG_SCOPE, (scopeEnd) => {
    scope = { name: '', version: '' };
    while (r.pos < scopeEnd) {
      const tag = r.uint32();
      if (tag === TAG_SCOPE_NAME) scope.name = stringOf(r);
      else if (tag === TAG_SCOPE_VERSION) scope.version = stringOf(r);
      else r.skipType(tag & 7);
    }
  });
  r.pos = start;
  each(r, end, TAG_SPAN, (spanEnd) => readSpan(r, spanEnd, resource, scope, batch));
}
