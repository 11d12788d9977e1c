// The proxy's own spans: an OTel API Tracer and Span (so the instrument package's contract reporter runs on
// them as on the SDK's) that keep only what OTLP needs and are handed, once ended, to the export queue, which
// encodes them at once: a finished span is a few hundred bytes, not objects the GC keeps moving.
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context as contextApi,
  isSpanContextValid,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { type SdkEnv, sampled } from './sdk-env.js';
import { FLAG_SAMPLED, newSpanId, newTraceId, nowNs, type SpanRef } from './trace-context.js';

/** Where ended spans go. */
export type SpanSink = { onEnd(span: ProxySpan): void };

/** A span's parent: the client's (remote) or one of this process's. */
export type ParentRef = SpanRef & { remote: boolean };

/** An instrumentation scope; spans carry its index in the provider's list. */
export type Scope = { name: string; version: string | undefined };

export type SpanEvent = { name: string; timeNs: bigint; attributes: Attributes };

/** A recording span of the proxy. */
export class ProxySpan implements Span {
  readonly ref: SpanRef;
  readonly parentSpanId: string | undefined;
  readonly remoteParent: boolean;
  readonly kind: SpanKind;
  readonly scope: number;
  readonly startNs: bigint;
  name: string;
  endNs = 0n;
  attributes: Attributes = {};
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
   * Takes `attributes` itself as the span's first attributes when each would be kept as it is (within the limits,
   * nothing cut): a call span starts with a fresh object of the proxy's, not worth copying key by key.
   */
  adoptAttributes(attributes: Attributes): this {
    const limits = this.#tracer.env.limits;
    const cut = limits.attributeValueLength;
    let n = 0;
    for (const key in attributes) {
      const v = attributes[key];
      const kept =
        Object.hasOwn(attributes, key) && key.length > 0 && key !== '__proto__' && v != null;
      if (!kept || ++n > limits.attributeCount || (cut !== Infinity && truncated(v, cut) !== v))
        return this.setAttributes(attributes);
    }
    if (this.attributeCount > 0 || this.endNs !== 0n) return this.setAttributes(attributes);
    this.attributes = attributes;
    this.attributeCount = n;
    return this;
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
function timeNs(t: TimeInput): bigint {
  if (Array.isArray(t)) return BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
  const ms = t instanceof Date ? t.getTime() : t;
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

function truncated(value: AttributeValue, limit: number): AttributeValue {
  if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
  if (Array.isArray(value))
    return value.map((v) =>
      typeof v === 'string' && v.length > limit ? v.slice(0, limit) : v,
    ) as AttributeValue;
  return value;
}

/** A tracer of one scope; `start` is the proxy's own path, `startSpan` the OTel API's. */
export class ProxyTracer implements Tracer {
  readonly scope: number;
  readonly sink: SpanSink;
  readonly env: SdkEnv;

  constructor(scope: number, sink: SpanSink, env: SdkEnv) {
    this.scope = scope;
    this.sink = sink;
    this.env = env;
  }

  /**
   * A span under `parent` (a remote span context, or none for a new trace); not recording if sampled out. With
   * `adopt`, `attributes` is the caller's to give away: the span may keep that very object.
   */
  start(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    parent: ParentRef | undefined,
    startTime?: TimeInput,
    adopt = false,
  ): Span {
    const startNs = startTime === undefined ? nowNs() : timeNs(startTime);
    return this.open(this.reserve(parent), name, kind, attributes, parent, startNs, adopt);
  }

  /**
   * A span's identity decided now (its trace, a new span id, the sampling decision), for a span opened later
   * with `open`: the proxy passes a call's context upstream before it reads the rest of the request.
   */
  reserve(parent: ParentRef | undefined): SpanRef {
    const traceId = parent ? parent.traceId : newTraceId();
    const keep = sampled(this.env, traceId, parent?.flags);
    return {
      traceId,
      spanId: newSpanId(),
      flags: keep ? FLAG_SAMPLED : 0,
      traceState: parent?.traceState ?? '',
    };
  }

  /** The span `reserve` gave `ref` to, started at `startNs` (epoch nanoseconds); see `start`. */
  open(
    ref: SpanRef,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    parent: ParentRef | undefined,
    startNs: bigint,
    adopt = false,
  ): Span {
    if ((ref.flags & FLAG_SAMPLED) === 0)
      return trace.wrapSpanContext({ traceId: ref.traceId, spanId: ref.spanId, traceFlags: 0 });
    const span = new ProxySpan(this, name, kind, ref, parent, startNs);
    if (adopt) span.adoptAttributes(attributes);
    else span.setAttributes(attributes);
    return span;
  }

  startSpan(name: string, options: SpanOptions = {}, ctx?: Context): Span {
    const sc = options.root ? undefined : trace.getSpanContext(ctx ?? contextApi.active());
    const parent: ParentRef | undefined =
      sc && isSpanContextValid(sc)
        ? {
            traceId: sc.traceId,
            spanId: sc.spanId,
            flags: sc.traceFlags,
            traceState: sc.traceState?.serialize() ?? '',
            remote: sc.isRemote === true,
          }
        : undefined;
    const kind = options.kind ?? SpanKind.INTERNAL;
    const span = this.start(name, kind, options.attributes ?? {}, parent, options.startTime);
    if (options.links && span instanceof ProxySpan) span.addLinks(options.links);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    a?: SpanOptions | F,
    b?: Context | F,
    c?: F,
  ): ReturnType<F> {
    const fn = (typeof a === 'function' ? a : typeof b === 'function' ? b : c) as F;
    const options = typeof a === 'object' ? a : undefined;
    const ctx = typeof b === 'object' ? b : contextApi.active();
    const span = this.startSpan(name, options, ctx);
    return contextApi.with(
      trace.setSpan(ctx, span),
      fn as (span: Span) => ReturnType<F>,
      undefined,
      span,
    );
  }
}

/** The provider: one tracer per scope, all ending into one sink. */
export class ProxyTracerProvider implements TracerProvider {
  /** The scopes of the tracers made so far; a span names its scope by index in this list. */
  readonly scopes: Scope[];
  readonly #tracers = new Map<string, ProxyTracer>();
  readonly #sink: SpanSink;
  readonly #env: SdkEnv;

  constructor(sink: SpanSink, env: SdkEnv, scopes: Scope[] = []) {
    this.#sink = sink;
    this.#env = env;
    this.scopes = scopes;
  }

  getTracer(name: string, version?: string): ProxyTracer {
    const key = `${name}@${version ?? ''}`;
    let tracer = this.#tracers.get(key);
    if (!tracer) {
      this.scopes.push({ name, version });
      tracer = new ProxyTracer(this.scopes.length - 1, this.#sink, this.#env);
      this.#tracers.set(key, tracer);
    }
    return tracer;
  }
}
