// The proxy's OTel API Tracer and TracerProvider (so the instrument package's contract reporter runs on them as
// on the SDK's): spans of its own (proxy-span.ts), sampled as the SDK would, ending into the export queue.
import {
  type Attributes,
  type Context,
  context as contextApi,
  isSpanContextValid,
  type Span,
  SpanKind,
  type SpanOptions,
  type TimeInput,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { ProtoWriter } from './proto-writer.js';
import {
  type ParentRef,
  ProxySpan,
  type Scope,
  type SharedAttributes,
  type SpanSink,
  timeNs,
  truncated,
} from './proxy-span.js';
import type { ServerIdentity } from './resources.js';
import { type SdkEnv, sampled } from './sdk-env.js';
import { attributes as encodeAttributes } from './span-encoder.js';
import { FLAG_SAMPLED, newSpanId, newTraceId, nowNs, type SpanRef } from './trace-context.js';

/** A tracer of one scope; `start` is the proxy's own path, `startSpan` the OTel API's. */
export class ProxyTracer implements Tracer {
  readonly scope: number;
  readonly sink: SpanSink;
  readonly env: SdkEnv;
  /** The session's server its spans are exported under; none for the proxy's own. */
  readonly service: ServerIdentity | undefined;

  constructor(scope: number, sink: SpanSink, env: SdkEnv, service?: ServerIdentity) {
    this.scope = scope;
    this.sink = sink;
    this.env = env;
    this.service = service;
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

  /**
   * `attributes` encoded once for the spans `open` starts with them, or undefined when this tracer's limits would
   * drop or cut any of them (those spans then take them one by one).
   */
  share(attributes: Attributes): SharedAttributes | undefined {
    const limits = this.env.limits;
    let count = 0;
    for (const key in attributes) {
      const v = attributes[key];
      if (!Object.hasOwn(attributes, key) || key.length === 0 || key === '__proto__' || v == null)
        return undefined;
      if (
        limits.attributeValueLength !== Infinity &&
        truncated(v, limits.attributeValueLength) !== v
      )
        return undefined;
      count++;
    }
    if (count > limits.attributeCount) return undefined;
    const w = new ProtoWriter(512);
    encodeAttributes(w, 9, attributes);
    return { attributes: { ...attributes }, count, bytes: w.copy() };
  }

  /**
   * The span `reserve` gave `ref` to, started at `startNs` (epoch nanoseconds); see `start`. With `shared` (from
   * this tracer's `share`), the span's first attributes are those, then `attributes`.
   */
  open(
    ref: SpanRef,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    parent: ParentRef | undefined,
    startNs: bigint,
    adopt = false,
    shared?: SharedAttributes,
  ): Span {
    if ((ref.flags & FLAG_SAMPLED) === 0)
      return trace.wrapSpanContext({ traceId: ref.traceId, spanId: ref.spanId, traceFlags: 0 });
    const span = new ProxySpan(this, name, kind, ref, parent, startNs);
    if (shared) {
      span.shared = shared;
      span.attributeCount = shared.count;
    }
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

/**
 * The provider: one tracer per scope, all ending into one sink. Each session has a provider of its own (its
 * spans go under its server's resource); they share the sink and the list of scopes.
 */
export class ProxyTracerProvider implements TracerProvider {
  /** The scopes of the tracers made so far; a span names its scope by index in this list. */
  readonly scopes: Scope[];
  readonly #tracers = new Map<string, ProxyTracer>();
  readonly #sink: SpanSink;
  readonly #env: SdkEnv;
  readonly #service: ServerIdentity | undefined;

  constructor(sink: SpanSink, env: SdkEnv, scopes: Scope[] = [], service?: ServerIdentity) {
    this.#sink = sink;
    this.#env = env;
    this.scopes = scopes;
    this.#service = service;
  }

  getTracer(name: string, version?: string): ProxyTracer {
    const key = `${name}@${version ?? ''}`;
    let tracer = this.#tracers.get(key);
    if (!tracer) {
      // Another session's provider may have listed the scope already: a handful of scopes, read once each.
      let scope = this.scopes.findIndex((s) => s.name === name && s.version === version);
      if (scope === -1) scope = this.scopes.push({ name, version }) - 1;
      tracer = new ProxyTracer(scope, this.#sink, this.#env, this.#service);
      this.#tracers.set(key, tracer);
    }
    return tracer;
  }
}
