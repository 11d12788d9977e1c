// The tracer providers the instrument benches measure with: spans batched as in production, then dropped (or
// counted and dropped), so a variant's figure is its own work and not an exporter's.
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

const noopExporter: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

/** A provider whose batch processor hands its spans to an exporter that drops them. */
export const noopProvider = (): BasicTracerProvider =>
  new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(noopExporter, { maxQueueSize: 65_536, maxExportBatchSize: 512 }),
    ],
  });

/** A provider whose spans named `name` are counted as they are exported (a variant's proof of its spans). */
export type Counted = { provider: BasicTracerProvider; spans: () => number };

/** A provider that batches as in production and counts the exported spans named `name`, then drops them. */
export function countingProvider(name: string): Counted {
  let spans = 0;
  const exporter: SpanExporter = {
    export: (batch, done) => {
      for (const span of batch) if (span.name === name) spans++;
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(exporter, { maxQueueSize: 65_536, maxExportBatchSize: 512 }),
    ],
  });
  return { provider, spans: () => spans };
}
