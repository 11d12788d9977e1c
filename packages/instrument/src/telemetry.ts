// A span that can never break the tool: every OTel call is guarded, and a failure is logged once.
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  diag,
  type Link,
  type Span,
  type SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE } from './semconv.js';
import { spanStartMs } from './span-clock.js';
import { PACKAGE_VERSION } from './version.js';

let warned = false;

function reportOnce(error: unknown): void {
  if (warned) return;
  warned = true;
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
  diag.error(`@toolscope/instrument: tracing failed; tools keep running without spans (${detail})`);
}

export type SpanSpec = {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  parent?: Context;
  links?: Link[];
};

/** A guarded span: its methods never throw. */
export class SafeSpan {
  readonly #span: Span | undefined;
  readonly #parent: Context;
  /** Its start (span-clock.ts), and performance.now() then: its end and events are that start plus the time since. */
  readonly #startMs: number;
  readonly #startedAt: number;

  constructor(span: Span | undefined, parent: Context, startMs = 0, startedAt = 0) {
    this.#span = span;
    this.#parent = parent;
    this.#startMs = startMs;
    this.#startedAt = startedAt;
  }

  /** A time of this span's clock: `at`, a performance.now() reading, in milliseconds since the epoch. */
  #timeOf(at: number): number {
    return this.#startMs + (at - this.#startedAt);
  }

  /**
   * The parent context with this span set in it, made on each read (read it once per use). Not kept on the span:
   * an answered call's span lives until it ends after the response, and a context (a map and its closures) kept
   * with each of them was that much more for the young-generation collections to copy.
   */
  get context(): Context {
    if (!this.#span) return this.#parent;
    try {
      return trace.setSpan(this.#parent, this.#span);
    } catch (error) {
      reportOnce(error);
      return this.#parent;
    }
  }

  /** Whether the span goes anywhere (false for a no-op provider or a sampled-out span). */
  get recording(): boolean {
    try {
      return this.#span?.isRecording() ?? false;
    } catch (error) {
      reportOnce(error);
      return false;
    }
  }

  setAttributes(attributes: Attributes): void {
    if (!this.#span) return;
    try {
      this.#span.setAttributes(attributes);
    } catch (error) {
      reportOnce(error);
    }
  }

  setAttribute(key: string, value: AttributeValue): void {
    if (!this.#span) return;
    try {
      this.#span.setAttribute(key, value);
    } catch (error) {
      reportOnce(error);
    }
  }

  addEvent(name: string, attributes: Attributes): void {
    if (!this.#span) return;
    try {
      this.#span.addEvent(name, attributes, this.#timeOf(performance.now()));
    } catch (error) {
      reportOnce(error);
    }
  }

  /** Ends the span, with an error status when `error` is given; `endTime` (`performance.now()`) if it ended earlier. */
  end(error: string | undefined, endTime?: number): void {
    if (!this.#span) return;
    try {
      if (error !== undefined) this.#span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      // Always a time of the start's clock: given a start, the SDK would take Date.now() (whole milliseconds).
      this.#span.end(this.#timeOf(endTime ?? performance.now()));
    } catch (caught) {
      reportOnce(caught);
    }
  }
}

// Tracers are cached per provider object: the global provider object changes only on `trace.disable()`,
// and a proxy tracer follows a provider registered later by itself.
const tracers = new WeakMap<TracerProvider, Tracer>();

function tracerOf(provider: TracerProvider): Tracer {
  let tracer = tracers.get(provider);
  if (!tracer) {
    tracer = provider.getTracer(INSTRUMENTATION_SCOPE, PACKAGE_VERSION);
    tracers.set(provider, tracer);
  }
  return tracer;
}

/** Starts a span through `provider` (or the global provider); if that fails, a no-op span stands in. */
export function startSafeSpan(provider: TracerProvider | undefined, spec: SpanSpec): SafeSpan {
  return startSafeSpanOf(provider, spec.name, spec.kind, spec.attributes, spec.parent, spec.links);
}

/** `startSafeSpan` with its parts as arguments: the per-call paths make no spec object. */
export function startSafeSpanOf(
  provider: TracerProvider | undefined,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: Context | undefined,
  links: Link[] | undefined,
): SafeSpan {
  const ctx = parent ?? context.active();
  try {
    const tracer = tracerOf(provider ?? trace.getTracerProvider());
    const startedAt = performance.now();
    const startTime = spanStartMs();
    const options: SpanOptions =
      links === undefined
        ? { kind, attributes, startTime }
        : { kind, attributes, links, startTime };
    return new SafeSpan(tracer.startSpan(name, options, ctx), ctx, startTime, startedAt);
  } catch (error) {
    reportOnce(error);
    return new SafeSpan(undefined, ctx);
  }
}

// Counts entries into `fn` through the context manager, so a throw can be told apart: before entry it is the
// context manager's (run `fn` without it), after entry it is `fn`'s own (rethrow, never run it twice). A
// counter instead of a per-call closure: this runs on every call, and closures cost an allocation (and, under
// tsx, a defineProperty for their name).
let entries = 0;

function entered<A extends unknown[], T>(fn: (...args: A) => T, ...args: A): T {
  entries++;
  return fn(...args);
}

/** Runs `fn(...args)` with `ctx` active; if the context manager fails, runs it without. */
export function withContext<A extends unknown[], T>(
  ctx: Context,
  fn: (...args: A) => T,
  ...args: A
): T {
  const before = entries;
  try {
    return context.with(ctx, entered, undefined, fn, ...args) as T;
  } catch (error) {
    if (entries !== before) throw error;
    reportOnce(error);
    return fn(...args);
  }
}
