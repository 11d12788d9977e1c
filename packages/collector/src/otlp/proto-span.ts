// One OTLP Span read straight from the protobuf wire into the collector's model. protobufjs made an object for
// the span, each attribute's KeyValue and AnyValue, and a Long for each 64-bit field, only for the walk to copy
// them out again: a third of what the decoding thread allocated per span, and all of it scavenger work. Here
// the fields go straight into the span's parts; the rules (caps, ids, times) stay those of normalize.ts and
// walk.ts, and a test holds this reader to the OTLP/JSON decoder on the same spans.
import { type AttrMap, type DecodedBatch, LIMITS, type SpanEvent, type SpanLink } from './model.js';
import { AttrCollector, clipName } from './normalize.js';
import { forgetStrings, stringOf } from './proto-strings.js';
import { closes, ends, fixed64, hexOf, keyValue, RepeatedHex, type Wire } from './proto-values.js';
import { finishSpan } from './walk.js';

export type Scope = { name: string; version: string };

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32), per message.
const SPAN_TRACE_ID = 10; // 1
const SPAN_SPAN_ID = 18; // 2
const SPAN_PARENT_ID = 34; // 4
const SPAN_NAME = 42; // 5
const SPAN_KIND = 48; // 6
const SPAN_START = 57; // 7
const SPAN_END = 65; // 8
const SPAN_ATTRIBUTE = 74; // 9
const SPAN_EVENT = 90; // 11
const SPAN_LINK = 106; // 13
const SPAN_STATUS = 122; // 15
const EVENT_TIME = 9; // 1
const EVENT_NAME = 18; // 2
const EVENT_ATTRIBUTE = 26; // 3
const LINK_TRACE_ID = 10; // 1
const LINK_SPAN_ID = 18; // 2
const LINK_ATTRIBUTE = 34; // 4
const STATUS_MESSAGE = 18; // 2
const STATUS_CODE = 24; // 3

const NO_EVENTS: SpanEvent[] = [];
// The trace id of a trace's spans and the parent id of siblings repeat from span to span.
const traceIds = new RepeatedHex();
/** One collector for every span's attributes (an object less per span): a span is read whole before the next. */
const spanAttributes = new AttrCollector();
const parentIds = new RepeatedHex();
const NO_LINKS: SpanLink[] = [];

/**
 * Lets go of what the reader kept from the request just decoded: its short strings, and its last span's
 * attribute map (a decoding that failed leaves it unmasked).
 */
export function forgetRequest(): void {
  forgetStrings();
  spanAttributes.reset();
}

/** Reads the span message that ends at `end` into `batch` (or counts it as rejected, with its reason). */
export function readSpan(
  r: Wire,
  end: number,
  resource: AttrMap,
  scope: Scope,
  batch: DecodedBatch,
): void {
  let traceId = '';
  let spanId = '';
  let parent = '';
  let name = '';
  let kind = 0;
  let startNs = 0n;
  let endNs = 0n;
  let statusCode = 0;
  let statusMessage = '';
  const collector = spanAttributes.reset();
  let events = NO_EVENTS;
  let links = NO_LINKS;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case SPAN_TRACE_ID:
        traceId = traceIds.read(r);
        break;
      case SPAN_SPAN_ID:
        spanId = hexOf(r);
        break;
      case SPAN_PARENT_ID:
        parent = parentIds.read(r);
        break;
      case SPAN_NAME:
        name = stringOf(r);
        break;
      case SPAN_KIND:
        kind = r.int32();
        break;
      case SPAN_START:
        startNs = fixed64(r);
        break;
      case SPAN_END:
        endNs = fixed64(r);
        break;
      case SPAN_ATTRIBUTE:
        keyValue(r, ends(r), collector);
        break;
      case SPAN_EVENT:
        if (events.length < LIMITS.maxEventsPerSpan) {
          if (events === NO_EVENTS) events = [];
          events.push(readEvent(r, ends(r)));
        } else r.skipType(2);
        break;
      case SPAN_LINK:
        if (links.length < LIMITS.maxLinksPerSpan) {
          if (links === NO_LINKS) links = [];
          links.push(readLink(r, ends(r)));
        } else r.skipType(2);
        break;
      case SPAN_STATUS: {
        // A message field sent twice is merged: each of its fields keeps its last value.
        const statusEnd = ends(r);
        while (r.pos < statusEnd) {
          const t = r.uint32();
          if (t === STATUS_MESSAGE) statusMessage = r.string();
          else if (t === STATUS_CODE) statusCode = r.int32();
          else r.skipType(t & 7);
        }
        closes(r, statusEnd);
        break;
      }
      default:
        r.skipType(tag & 7);
    }
  }
  closes(r, end);
  finishSpan(batch, {
    traceId,
    spanId,
    parentSpanId: parent === '' ? null : parent,
    name: clipName(name),
    kind,
    startNs,
    endNs,
    statusCode,
    statusMessage: clipName(statusMessage),
    attributes: collector.map,
    events,
    links,
    resource,
    scopeName: clipName(scope.name),
    scopeVersion: clipName(scope.version),
    truncatedKeys: collector.truncated,
    droppedAttributes: collector.dropped,
  });
}

function readEvent(r: Wire, end: number): SpanEvent {
  let timeNs = 0n;
  let name = '';
  const c = new AttrCollector(64);
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === EVENT_TIME) timeNs = fixed64(r);
    else if (tag === EVENT_NAME) name = stringOf(r);
    else if (tag === EVENT_ATTRIBUTE) keyValue(r, ends(r), c);
    else r.skipType(tag & 7);
  }
  closes(r, end);
  return { timeNs, name: clipName(name), attributes: c.map };
}

function readLink(r: Wire, end: number): SpanLink {
  let traceId = '';
  let spanId = '';
  const c = new AttrCollector(64);
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === LINK_TRACE_ID) traceId = hexOf(r);
    else if (tag === LINK_SPAN_ID) spanId = hexOf(r);
    else if (tag === LINK_ATTRIBUTE) keyValue(r, ends(r), c);
    else r.skipType(tag & 7);
  }
  closes(r, end);
  return { traceId, spanId, attributes: c.map };
}
