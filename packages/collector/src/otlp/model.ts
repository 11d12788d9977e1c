// The collector's span model after decoding, whatever the wire format: hex ids, nanosecond bigints,
// attribute maps whose keys (even `__proto__`) are own data properties.

export type AttrValue =
  | string
  | number
  | boolean
  | null
  | AttrValue[]
  | { [key: string]: AttrValue };
export type AttrMap = Record<string, AttrValue>;

export type SpanEvent = { timeNs: bigint; name: string; attributes: AttrMap };
export type SpanLink = { traceId: string; spanId: string; attributes: AttrMap };

export type NormalizedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP kind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  /** OTLP status: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  attributes: AttrMap;
  events: SpanEvent[];
  links: SpanLink[];
  resource: AttrMap;
  scopeName: string;
  scopeVersion: string;
  /** Attribute keys whose values were cut, and how many attributes were dropped, by the collector's caps. */
  truncatedKeys: string[];
  droppedAttributes: number;
};

/** What a decoder made of one request: the usable spans, and why the others were refused. */
export type DecodedBatch = { spans: NormalizedSpan[]; rejected: number; errors: string[] };

export type DecodeResult = { ok: true; batch: DecodedBatch } | { ok: false; message: string };

/** Collector caps on what one span may carry (beyond them values are cut and marked, not refused). */
export const LIMITS = {
  maxAttributesPerSpan: 512,
  maxStringLength: 16 * 1024,
  /** A tool's contract entry (its JSON Schemas) may be longer: a heavy schema is what it must show. */
  maxContractEntryLength: 256 * 1024,
  maxEventsPerSpan: 128,
  maxLinksPerSpan: 128,
  maxNameLength: 1024,
  maxDepth: 8,
  maxArrayItems: 256,
} as const;
