// OTLP/protobuf of the proxy's spans (opentelemetry/proto trace/v1 and collector/trace/v1): each span is encoded
// once as it ends; an export request wraps the encoded spans of each scope under their resource, whose bytes
// and each scope's are written once. Fields are written in the order and with the zero counts the OTel JS
// exporter writes, so the bytes are the SDK's own.
import type { Attributes } from '@opentelemetry/api';
import {
  ProtoWriter,
  varintSize,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_VARINT,
} from './proto-writer.js';
import type { ProxySpan, Scope } from './proxy-span.js';

// Span.flags (proto field 16): the W3C flags, and whether the parent's "is remote" is known and true.
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

function anyValue(w: ProtoWriter, value: unknown): void {
  if (typeof value === 'string') {
    w.tag(1, WIRE_LEN);
    w.string(value);
  } else if (typeof value === 'boolean') {
    w.tag(2, WIRE_VARINT);
    w.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    // int_value for integers in the int64 range, double_value otherwise (as the OTel exporter decides).
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
      w.tag(3, WIRE_VARINT);
      w.int64(value);
    } else {
      w.tag(4, WIRE_FIXED64);
      w.double(value);
    }
  } else if (Array.isArray(value)) {
    w.tag(5, WIRE_LEN);
    const array = w.begin();
    for (const item of value) {
      w.tag(1, WIRE_LEN);
      const at = w.begin();
      anyValue(w, item);
      w.end(at);
    }
    w.end(array);
  }
  // null or undefined (an array's hole): an empty AnyValue.
}

/** Repeated KeyValue under `field`. */
export function attributes(w: ProtoWriter, field: number, attrs: Attributes): void {
  for (const key in attrs) {
    const value = attrs[key];
    if (value === undefined) continue;
    w.tag(field, WIRE_LEN);
    const kv = w.begin();
    w.tag(1, WIRE_LEN);
    w.string(key);
    w.tag(2, WIRE_LEN);
    const v = w.begin();
    anyValue(w, value);
    w.end(v);
    w.end(kv);
  }
}

/** The fields of one Span message (without its own tag and length). */
export function encodeSpan(w: ProtoWriter, span: ProxySpan): void {
  w.tag(1, WIRE_LEN);
  w.hex(span.ref.traceId);
  w.tag(2, WIRE_LEN);
  w.hex(span.ref.spanId);
  if (span.ref.traceState) {
    w.tag(3, WIRE_LEN);
    w.string(span.ref.traceState);
  }
  if (span.parentSpanId) {
    w.tag(4, WIRE_LEN);
    w.hex(span.parentSpanId);
  }
  w.tag(5, WIRE_LEN);
  w.string(span.name);
  // The proto's SpanKind counts UNSPECIFIED as 0, the API's starts at INTERNAL = 0.
  w.tag(6, WIRE_VARINT);
  w.varint(span.kind + 1);
  w.tag(7, WIRE_FIXED64);
  w.fixed64(span.startNs);
  w.tag(8, WIRE_FIXED64);
  w.fixed64(span.endNs);
  if (span.shared) w.raw(span.shared.bytes);
  attributes(w, 9, span.attributes);
  w.tag(10, WIRE_VARINT);
  w.varint(span.droppedAttributes);
  for (const event of span.events ?? []) {
    w.tag(11, WIRE_LEN);
    const at = w.begin();
    w.tag(1, WIRE_FIXED64);
    w.fixed64(event.timeNs);
    w.tag(2, WIRE_LEN);
    w.string(event.name);
    attributes(w, 3, event.attributes);
    w.tag(4, WIRE_VARINT);
    w.varint(0);
    w.end(at);
  }
  w.tag(12, WIRE_VARINT);
  w.varint(0);
  for (const link of span.links ?? []) {
    w.tag(13, WIRE_LEN);
    const at = w.begin();
    w.tag(1, WIRE_LEN);
    w.hex(link.context.traceId);
    w.tag(2, WIRE_LEN);
    w.hex(link.context.spanId);
    const state = link.context.traceState?.serialize();
    if (state) {
      w.tag(3, WIRE_LEN);
      w.string(state);
    }
    attributes(w, 4, link.attributes ?? {});
    w.tag(5, WIRE_VARINT);
    w.varint(0);
    w.tag(6, WIRE_FIXED32);
    w.fixed32(
      (link.context.traceFlags & 0xff) | HAS_IS_REMOTE | (link.context.isRemote ? IS_REMOTE : 0),
    );
    w.end(at);
  }
  w.tag(14, WIRE_VARINT);
  w.varint(0);
  w.tag(15, WIRE_LEN);
  const status = w.begin();
  if (span.status.message) {
    w.tag(2, WIRE_LEN);
    w.string(span.status.message);
  }
  w.tag(3, WIRE_VARINT);
  w.varint(span.status.code);
  w.end(status);
  w.tag(16, WIRE_FIXED32);
  w.fixed32((span.ref.flags & 0xff) | HAS_IS_REMOTE | (span.remoteParent ? IS_REMOTE : 0));
}

/** The `resource` field of a ResourceSpans, tag and length included: written once, sent in every request. */
export function encodeResource(resource: Attributes): Buffer {
  const w = new ProtoWriter(256);
  w.tag(1, WIRE_LEN);
  const res = w.begin();
  attributes(w, 1, resource);
  w.tag(2, WIRE_VARINT);
  w.varint(0);
  w.end(res);
  return w.copy();
}

/** The `scope` field of a ScopeSpans, tag and length included. */
export function encodeScope(scope: Scope): Buffer {
  const w = new ProtoWriter(128);
  w.tag(1, WIRE_LEN);
  const sc = w.begin();
  w.tag(1, WIRE_LEN);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, WIRE_LEN);
    w.string(scope.version);
  }
  w.end(sc);
  return w.copy();
}

/** One ScopeSpans of a request: its `scope` field and its spans, each already a `spans` field. */
export type ScopePart = { scope: Buffer; spans: Buffer };

const fieldSize = (length: number) => 1 + varintSize(length) + length;

/** One ResourceSpans of a request: its encoded `resource` field and a ScopeSpans per part. */
export type ResourcePart = { resource: Buffer; scopes: readonly ScopePart[] };

/**
 * An ExportTraceServiceRequest: a ResourceSpans per part (a proxy serving several servers exports each one's spans
 * under its own resource), each with a ScopeSpans per scope part (in the order of the provider's scopes, as the
 * SDK writes them). Sizes are known, so it is written in one buffer.
 */
export function encodeRequest(parts: readonly ResourcePart[]): Buffer {
  const sizes: number[] = [];
  let total = 0;
  for (const part of parts) {
    let rs = part.resource.length;
    for (const p of part.scopes) rs += fieldSize(p.scope.length + p.spans.length);
    sizes.push(rs);
    total += fieldSize(rs);
  }
  const w = new ProtoWriter(total);
  parts.forEach((part, i) => {
    w.tag(1, WIRE_LEN);
    w.varint(sizes[i] as number);
    w.raw(part.resource);
    for (const p of part.scopes) {
      w.tag(2, WIRE_LEN);
      w.varint(p.scope.length + p.spans.length);
      w.raw(p.scope);
      w.raw(p.spans);
    }
  });
  return w.written();
}
