// MCP through the SDK's InMemoryTransport: client and server instrumented in one process.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentMcpClient } from '../../src/index.js';
import { createTracing } from '../tracing.js';
import { buildServer } from './fixture-server.js';
import { checkScenario, runScenario, viewOf } from './scenario.js';

const tracing = createTracing();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracing.provider);
});
afterAll(() => {
  trace.disable();
  context.disable();
});

describe('MCP over InMemoryTransport', () => {
  it('traces client and server in one trace, with repairable envelopes and honest errors', async () => {
    const server = buildServer(tracing.provider);
    const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), {
      tracerProvider: tracing.provider,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    const results = await runScenario(client);
    await client.close();
    await tracing.settled();
    checkScenario(results, tracing.spans().map(viewOf));
  });

  it('injects traceparent into _meta of requests that had none, and keeps the caller _meta', async () => {
    const server = buildServer(tracing.provider);
    const seen: unknown[] = [];
    server.server.setRequestHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ListToolsRequestSchema,
      async (request) => {
        seen.push(request.params?._meta);
        return { tools: [] };
      },
    );
    const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), {
      conversationId: 'conv-7',
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    await trace.getTracer('agent').startActiveSpan('turn', async (span) => {
      await client.listTools();
      await client.listTools({ _meta: { 'example.com/keep': 1 } } as never);
      span.end();
    });
    await client.close();
    await tracing.settled();
    expect(seen).toHaveLength(2);
    for (const meta of seen) {
      expect(meta).toMatchObject({
        traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
        'toolscope.dev/conversation-id': 'conv-7',
      });
    }
    expect(seen[1]).toMatchObject({ 'example.com/keep': 1 });
  });
});
