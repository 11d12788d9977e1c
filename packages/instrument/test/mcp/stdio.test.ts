// MCP over stdio with the server in a child process: its spans arrive over real OTLP/HTTP (JSON) at a
// loopback receiver, the client's stay in this process, and both must form one trace.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentMcpClient } from '../../src/index.js';
import { startReceiver } from '../otlp-receiver.js';
import { createTracing } from '../tracing.js';
import { checkScenario, runScenario, viewOf } from './scenario.js';

const tracing = createTracing();
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracing.provider);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  trace.disable();
  context.disable();
});

describe('MCP over stdio', () => {
  it('traces a client here and a server in a child process as one trace', async () => {
    const transport = new StdioClientTransport({
      command: fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url)),
      args: [
        '--conditions=@toolscope/source',
        fileURLToPath(new URL('./stdio-server.ts', import.meta.url)),
      ],
      env: {
        ...(process.env as Record<string, string>),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
      stderr: 'inherit',
    });
    const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), {
      tracerProvider: tracing.provider,
    });
    await client.connect(transport);
    const results = await runScenario(client);
    await client.close(); // ends stdin; the server exits and flushes its spans before it does
    const serverSpans = receiver.jsonSpans();
    expect(serverSpans.every((s) => s.kind === 1)).toBe(true);
    for (const s of serverSpans) expect(s.attributes['network.transport']).toBe('pipe');
    checkScenario(results, [...tracing.spans().map(viewOf), ...serverSpans]);
  }, 30_000);
});
