// The proxy's own spans: an OTel API Span (its tracer is proxy-tracer.ts) that keeps only what OTLP needs and is
// handed, once ended, to the export queue, which encodes it at once: a finished span is a few hundred bytes, not
// objects the GC keeps moving.
import type {
  Attributes,
  AttributeValue,
  Link,
  Span,
  SpanAttributes,
  SpanContext,
  SpanKind,
  SpanStatus,
  TimeInput,
} from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ProxyTracer } from './proxy-tracer.js';
import type { ServerIdentity } from './resources.js';
import { nowNs, type SpanRef } from './trace-context.js';

/** Where ended spans go. */
export type SpanSink = { onEnd(span: ProxySpan): void };

/** A span's parent: the client's (remote) or one of this process's. */
export type ParentRef = SpanRef & { remote: boolean };

/** An instrumentation scope; spans carry its index in the provider's list. */
export type Scope = { name: string; version: string | undefined };

export type SpanEvent = { name: string; timeNs: bigint; attributes: Attributes };

/**
 * Attributes many spans of a tracer start with (a call span's tool, transport and session), encoded once as the
 * Span's KeyValue fields, as the span encoder writes them: a span that starts with them copies their bytes.
 */
export type SharedAttributes = {
  readonly attributes: Readonly<Attributes>;
  readonly count: number;
  readonly bytes: Uint8Array;
};

/** A recording span of the proxy. */
export class ProxySpan implements Span {
  readonly ref: SpanRef;
  readonly parentSpanId: string | undefined;
  readonly remoteParent: boolean;
  readonly kind: SpanKind;
  readonly scope: number;
  /** The server of the session the span belongs to (its resource is decided from it as the span ends). */
  readonly service: ServerIdentity | undefined;
  readonly startNs: bigint;
  name: string;
  endNs = 0n;
  attributes: Attributes = {};
  /** Attributes encoded before `attributes` (they were the span's first); none of them is in `attributes`. */
  shared: SharedAttributes | undefined;
  attributeCount = 0;
  droppedAttributes = 0;
  events: SpanEvent[] | undefined;
  links: Link[] | undefined;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  readonly #tracer: ProxyTracer;

  constructor(
    tracer: ProxyTracer,
    name: string,
    kind: SpanKind,
    ref: SpanRef,
    parent: ParentRef | undefined,
    startNs: bigint,
  ) {
    this.#tracer = tracer;
    this.scope = tracer.scope;
    this.service = tracer.service;
    this.name = name;
    this.kind = kind;
    this.ref = ref;
    this.parentSpanId = parent?.spanId;
    this.remoteParent = parent?.remote === true;
    this.startNs = startNs;
  }

  spanContext(): SpanContext {
    return { traceId: this.ref.traceId, spanId: this.ref.spanId, traceFlags: this.ref.flags };
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.endNs !== 0n || key.length === 0 || value === undefined || value === null) return this;
    // A plain object holds the attributes: `__proto__` would set its prototype instead of a key.
    if (key === '__proto__') return this;
    if (this.shared !== undefined && Object.hasOwn(this.shared.attributes, key)) this.#unshare();
    const limits = this.#tracer.env.limits;
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.attributeCount >= limits.attributeCount) {
        this.droppedAttributes++;
        return this;
      }
      this.attributeCount++;
    }
    this.attributes[key] =
      limits.attributeValueLength === Number.POSITIVE_INFINITY
        ? value
        : truncated(value, limits.attributeValueLength);
    return this;
  }

  /**
   * Takes `attributes` itself as the span's first attributes (after its shared ones) when each would be kept as it
   * is (within the limits, nothing cut, no shared key again): a call span starts with a fresh object of the
   * proxy's, not worth copying key by key.
   */
  adoptAttributes(attributes: Attributes): this {
    const limits = this.#tracer.env.limits;
    const cut = limits.attributeValueLength;
    const shared = this.shared;
    const base = shared?.count ?? 0;
    if (this.attributeCount > base || this.endNs !== 0n) return this.setAttributes(attributes);
    let n = base;
    for (const key in attributes) {
      const v = attributes[key];
      const kept =
        Object.hasOwn(attributes, key) &&
        key.length > 0 &&
        key !== '__proto__' &&
        v != null &&
        !(shared !== undefined && Object.hasOwn(shared.attributes, key));
      if (!kept || ++n > limits.attributeCount || (cut !== Infinity && truncated(v, cut) !== v))
        return this.setAttributes(attributes);
    }
    this.attributes = attributes;
    this.attributeCount = n;
    return this;
  }

  /** A shared attribute set again: the shared ones become the span's own, first, as they were encoded. */
  #unshare(): void {
    this.attributes = { ...this.shared?.attributes, ...this.attributes };
    this.shared = undefined;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) this.setAttribute(key, value);
    }
    return this;
  }

  addEvent(name: string, attributes?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.endNs !== 0n) return this;
    this.events ??= [];
    if (this.events.length >= this.#tracer.env.limits.eventCount) return this;
    const attrs = typeof attributes === 'object' && !isTime(attributes) ? attributes : {};
    const at = isTime(attributes) ? attributes : time;
    this.events.push({ name, timeNs: at === undefined ? nowNs() : timeNs(at), attributes: attrs });
    return this;
  }

  addLink(link: Link): this {
    this.links ??= [];
    if (this.links.length < this.#tracer.env.limits.linkCount) this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // OK is final (the OTel SDK's rule): a later error cannot undo what the code declared.
    if (this.endNs !== 0n || this.status.code === SpanStatusCode.OK) return this;
    this.status = status;
    return this;
  }

  updateName(name: string): this {
    if (this.endNs === 0n) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.endNs !== 0n) return;
    this.endNs = endTime === undefined ? nowNs() : timeNs(endTime);
    if (this.endNs < this.startNs) this.endNs = this.startNs;
    this.#tracer.sink.onEnd(this);
  }

  isRecording(): boolean {
    return this.endNs === 0n;
  }

  recordException(exception: unknown, time?: TimeInput): void {
    const e = exception instanceof Error ? exception : new Error(String(exception));
    this.addEvent(
      'exception',
      { 'exception.type': e.name, 'exception.message': e.message, 'exception.stacktrace': e.stack },
      time,
    );
  }
}

const isTime = (v: unknown): v is TimeInput =>
  typeof v === 'number' || v instanceof Date || (Array.isArray(v) && v.length === 2);

/** Epoch nanoseconds of an OTel time input (epoch milliseconds, a Date, or [seconds, nanoseconds]). */
export function timeNs(t: TimeInput): bigint {
  if (Array.isArray(t)) return BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
  const ms = t instanceof Date ? t.getTime() : t;
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

/** `value` as the value length limit keeps it. */
export function truncated(value: AttributeValue, limit: number): AttributeValue {
  if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
  if (Array.isArray(value))
    return value.map((v) =>
      typeof v === 'string' && v.length > limit ? v.slice(0, limit) : v,
    ) as AttributeValue;
  return value;
}
