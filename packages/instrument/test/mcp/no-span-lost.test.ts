// No span is lost to work kept off the response path (decision 0047): a flush or shutdown of the user's own
// provider started right after the last call exports every call's spans, with a plain BasicTracerProvider and
// with @opentelemetry/sdk-node's NodeSDK, and a burst of thousands of calls in one tick is exported whole.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { context, propagation, type TracerProvider, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '../../src/index.js';
import * as sc from '../../src/semconv.js';

/**
 * An exporter that keeps what it is given and answers at once, as an in-process exporter does. (One whose answer
 * needs I/O cannot answer within one tick, and then the batch processor's own queue bounds what a tick can end.)
 */
function keepingExporter() {
  const spans: ReadableSpan[] = [];
  const exporter: SpanExporter = {
    export: (batch, done) => {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const calls = () => spans.filter((s) => s.name.startsWith('tools/call '));
  return { exporter, spans, calls };
}

const getInvoice = defineTool({
  name: 'get_invoice',
  version: '1',
  effect: 'read',
  description: 'One invoice',
  input: z.object({ invoiceId: z.string() }),
  output: z.object({ invoiceId: z.string(), total: z.number() }),
  hashKey: 'no-span-lost',
  execute: ({ invoiceId }) => ({ invoiceId, total: 1 }),
});

/** A server with a plain tool and a defineTool tool, and a client, both instrumented with `provider`. */
async function pair(provider: TracerProvider | undefined) {
  const options = provider ? { tracerProvider: provider, hashKey: 'k' } : { hashKey: 'k' };
  const server = instrumentMcpServer(new McpServer({ name: 'orders', version: '1' }), options);
  server.registerTool('get_order', { inputSchema: { id: z.string() } }, async ({ id }) => ({
    content: [{ type: 'text', text: id }],
  }));
  registerMcpTool(server, getInvoice);
  const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), options);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

async function lastCalls(client: Client): Promise<void> {
  await client.callTool({ name: 'get_order', arguments: { id: 'o-1' } });
  await client.callTool({ name: 'get_invoice', arguments: { invoiceId: 'in-1' } });
  await client.callTool({ name: 'get_order', arguments: { id: 'o-2' } });
}

/** Each of the three calls has its CLIENT and its SERVER span, ended complete. */
function expectEveryCall(spans: ReadableSpan[]): void {
  expect(spans).toHaveLength(6);
  for (const span of spans) {
    expect(span.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_HASH]).toMatch(/^[0-9a-f]{16}$/);
    expect(span.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES]).toBeGreaterThan(0);
  }
  expect(spans.filter((s) => s.kind === 1)).toHaveLength(3);
}

describe('no span lost to the response path', () => {
  it('BasicTracerProvider: shutdown() right after the last call exports every span of every call', async () => {
    const kept = keepingExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(kept.exporter)],
    });
    const client = await pair(provider);
    await lastCalls(client);
    await provider.shutdown();
    expectEveryCall(kept.calls());
  });

  it('BasicTracerProvider: forceFlush() right after the last call exports them too', async () => {
    const kept = keepingExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(kept.exporter)],
    });
    const client = await pair(provider);
    await lastCalls(client);
    await provider.forceFlush();
    expectEveryCall(kept.calls());
    await provider.shutdown();
  });

  it('NodeSDK: sdk.shutdown() right after the last call exports every span of every call', async () => {
    const kept = keepingExporter();
    const sdk = new NodeSDK({
      traceExporter: kept.exporter,
      instrumentations: [],
      autoDetectResources: false,
      metricReaders: [],
      logRecordProcessors: [],
    });
    sdk.start();
    try {
      // The global provider NodeSDK registered, as an application that sets up OTel once uses it.
      const client = await pair(undefined);
      await lastCalls(client);
      await sdk.shutdown();
      expectEveryCall(kept.calls());
    } finally {
      trace.disable();
      context.disable();
      propagation.disable();
    }
  });

  it('a burst of 2,000 calls in one tick: all 4,000 spans exported, each complete', async () => {
    const kept = keepingExporter();
    // The batch processor's defaults: a queue of 2,048 spans, batches of 512.
    const provider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(kept.exporter)],
    });
    const client = await pair(provider);
    await Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        client.callTool({ name: 'get_order', arguments: { id: `o-${i}` } }),
      ),
    );
    // A turn of the event loop before the flush: this is about the spans of a burst ending, not about a flush.
    await new Promise((resolve) => setImmediate(resolve));
    await provider.forceFlush();
    const spans = kept.calls();
    expect(spans).toHaveLength(4000);
    expect(
      spans.every((s) => typeof s.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_HASH] === 'string'),
    ).toBe(true);
    await provider.shutdown();
  });
});
