// Trace context through MCP `params._meta` (OTel MCP semconv, SEP-414): injected by the client into every
// request, extracted by the server as the parent; transport (HTTP header) context is only linked.
import {
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const w3c = new W3CTraceContextPropagator();

/** The configured global propagator, or W3C trace context when none is configured (the API's no-op). */
function propagator(): TextMapPropagator | undefined {
  return propagation.fields().length === 0 ? w3c : undefined;
}

type Carrier = Record<string, unknown>;

const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    return undefined;
  },
};

/** Writes `traceparent` / `tracestate` (and baggage) of `ctx` into `meta`. */
const setter: TextMapSetter<Carrier> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

export function injectInto(meta: Carrier, ctx: Context): void {
  const fallback = propagator();
  if (fallback) fallback.inject(ctx, meta, setter);
  else propagation.inject(ctx, meta, setter);
}

function extract(carrier: Carrier): Context | undefined {
  const fallback = propagator();
  const ctx = fallback
    ? fallback.extract(ROOT_CONTEXT, carrier, getter)
    : propagation.extract(ROOT_CONTEXT, carrier, getter);
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

function hasTraceKeys(carrier: unknown): boolean {
  return (
    isRecord(carrier) &&
    (carrier.traceparent !== undefined ||
      carrier.baggage !== undefined ||
      propagation
        .fields()
        .some((f) => f !== 'traceparent' && f !== 'tracestate' && carrier[f] !== undefined))
  );
}

function isRecord(value: unknown): value is Carrier {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type ServerParent = { parent: Context; links: Link[] | undefined };

/**
 * Parent of a server span: `params._meta` wins; the ambient context (an HTTP server span) and trace headers of
 * the HTTP request are linked, not used as parents.
 */
export function serverParent(meta: unknown, headers: unknown): ServerParent {
  const ambient = context.active();
  // Nothing to extract (a client without trace context): skip the propagator entirely.
  if (!hasTraceKeys(meta) && !hasTraceKeys(headers)) return { parent: ambient, links: undefined };
  const fromMeta = isRecord(meta) ? extract(meta) : undefined;
  const fromHeaders = isRecord(headers) ? extract(headers) : undefined;
  if (!fromMeta) {
    if (trace.getSpanContext(ambient)) return { parent: ambient, links: undefined };
    return { parent: fromHeaders ?? ambient, links: undefined };
  }
  const metaSpan = trace.getSpanContext(fromMeta);
  const links: Link[] = [];
  for (const candidate of [ambient, fromHeaders]) {
    const sc = candidate ? trace.getSpanContext(candidate) : undefined;
    if (!sc || sc.spanId === metaSpan?.spanId) continue;
    if (links.some((l) => l.context.spanId === sc.spanId)) continue;
    links.push({ context: sc });
  }
  return { parent: fromMeta, links: links.length > 0 ? links : undefined };
}
