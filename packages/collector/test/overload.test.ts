// Overload: with a small write queue (1,200 spans) and a writer slower than the sender, the real OTLP exporter gets 429 with
// Retry-After, backs off, retries, and in the end every span is stored. The queue bound caps what the
// collector holds: at most maxPendingSpans decoded spans plus the requests being decoded.

import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { ToolsResponse } from '../src/api/schemas.js';
import type { Storage } from '../src/index.js';
import { getJson, startTestCollector } from './harness.js';

describe('overload', () => {
  it('sheds load with 429 + Retry-After and loses nothing once the exporter retries', async () => {
    const owner = await startTestCollector();
    let refused = 0;
    let peakPending = 0;
    // A writer that needs 25 ms per commit: slower than the exporter sends.
    const slow: Storage = {
      ...owner.storage,
      write: async (spans) => {
        await new Promise((resolve) => setTimeout(resolve, 25));
        return owner.storage.write(spans);
      },
    };
    const c = await startTestCollector({
      storage: slow,
      maxPendingSpans: 1200,
      maxBatchSpans: 256,
    });
    const enqueue = c.queue.enqueue.bind(c.queue);
    c.queue.enqueue = (spans) => {
      const result = enqueue(spans);
      if (!result.ok) refused++;
      peakPending = Math.max(peakPending, c.queue.pendingSpans);
      return result;
    };
    // The SDK's own queue must hold the whole burst, and the exporter's timeout must leave room for its
    // retries: otherwise spans would be dropped on the client side before the collector saw them.
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new BatchSpanProcessor(
          new OTLPTraceExporter({ url: `${c.url}/v1/traces`, timeoutMillis: 60_000 }),
          {
            maxQueueSize: 10_000,
            maxExportBatchSize: 512,
            scheduledDelayMillis: 20,
            exportTimeoutMillis: 60_000,
          },
        ),
      ],
    });
    const tracer = provider.getTracer('load');
    const TOTAL = 6000;
    for (let i = 0; i < TOTAL; i++) {
      tracer
        .startSpan('execute_tool get_order', {
          attributes: { 'gen_ai.tool.name': 'get_order', 'toolscope.input.hash': `h${i}` },
        })
        .end();
    }
    await provider.forceFlush();
    await provider.shutdown();
    const tools = await getJson<ToolsResponse>(`${c.url}/api/tools`);
    process.stdout.write(
      `\noverload: ${TOTAL} spans sent, ${refused} requests refused with 429, ${tools.body.tools[0]?.calls ?? 0} stored, peak queue ${peakPending} spans (bound 1200 + one request)\n`,
    );
    expect(refused).toBeGreaterThan(0);
    expect(tools.body.tools[0]?.calls).toBe(TOTAL);
    expect(peakPending).toBeLessThanOrEqual(1200 + 512);
    await c.stop();
    await owner.stop();
  }, 120_000);
});
