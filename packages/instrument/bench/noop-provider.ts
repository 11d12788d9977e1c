// The tracer provider every instrument bench measures with: spans batched as in production, then dropped, so a
// variant's figure is its own work and not an exporter's.
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
