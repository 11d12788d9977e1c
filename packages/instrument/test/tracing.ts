// Shared fixture: a real OTel SDK tracer provider with an in-memory exporter, one per test.
import type { Attributes } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SPAN_NAME_TOOL_CONTRACT_PREFIX } from '../src/semconv.js';

export type Tracing = {
  provider: BasicTracerProvider;
  exporter: InMemorySpanExporter;
  /** The call spans (contract spans left out: most tests are about calls). */
  spans(): ReadableSpan[];
  only(): ReadableSpan;
  /** The contract spans (`tool_contract {tool}`) the tools reported. */
  contracts(): ReadableSpan[];
  /** Resolves once the spans of calls already answered have ended (the MCP adapters end them after the response). */
  settled(): Promise<void>;
};

const isContract = (span: ReadableSpan) =>
  span.name.startsWith(`${SPAN_NAME_TOOL_CONTRACT_PREFIX} `);

/** One turn of the event loop: the adapters finish answered calls' spans in the turn after the response. */
export const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createTracing(): Tracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    provider,
    exporter,
    spans: () => exporter.getFinishedSpans().filter((s) => !isContract(s)),
    contracts: () => exporter.getFinishedSpans().filter(isContract),
    settled,
    only: () => {
      const spans = exporter.getFinishedSpans().filter((s) => !isContract(s));
      if (spans.length !== 1) throw new Error(`expected exactly one span, got ${spans.length}`);
      return spans[0] as ReadableSpan;
    },
  };
}

/** Every attribute value of every span, as text, for "no payload value anywhere" assertions. */
export function allAttributeText(spans: ReadableSpan[]): string {
  const parts: string[] = [];
  const add = (attrs: Attributes) => {
    for (const [k, v] of Object.entries(attrs)) parts.push(`${k}=${JSON.stringify(v)}`);
  };
  for (const span of spans) {
    parts.push(span.name, span.status.message ?? '');
    add(span.attributes);
    for (const event of span.events) {
      parts.push(event.name);
      add(event.attributes ?? {});
    }
  }
  return parts.join('\n');
}
