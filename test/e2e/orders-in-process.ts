// The example orders server and the scripted agent's player in this process: the stable deployment's tools on an
// instrumented McpServer, an instrumented MCP client over the SDK's in-memory transport, and one tracer provider
// exporting every span (agent, client, server) with the real OTLP protobuf exporter to each collector given.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Player } from '@toolscope/example-orders-mcp/play';
import { toolsOf } from '@toolscope/example-orders-mcp/tools';
import { instrumentMcpClient, instrumentMcpServer, registerMcpTool } from '@toolscope/instrument';

export type InProcess = { player: Player; flush(): Promise<void>; close(): Promise<void> };

/**
 * The stable orders server and an agent whose spans go to every collector URL in `urls`. With `capture`, the
 * tools keep their redacted arguments and results (as the demo does).
 */
export async function ordersInProcess(urls: string[], capture: boolean): Promise<InProcess> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'orders-in-process' }),
    spanProcessors: urls.map(
      (url) =>
        new BatchSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }), {
          scheduledDelayMillis: 20,
        }),
    ),
  });
  // defineTool reads the capture setting when a tool is defined.
  const before = process.env.TOOLSCOPE_CAPTURE_CONTENT;
  process.env.TOOLSCOPE_CAPTURE_CONTENT = capture ? 'true' : 'false';
  const server = instrumentMcpServer(new McpServer({ name: 'orders', version: '2.0.0' }), {
    tracerProvider: provider,
  });
  for (const tool of toolsOf('stable')) registerMcpTool(server, tool);
  if (before === undefined) delete process.env.TOOLSCOPE_CAPTURE_CONTENT;
  else process.env.TOOLSCOPE_CAPTURE_CONTENT = before;
  const conversation = { id: '' };
  const client = instrumentMcpClient(new Client({ name: 'scripted-agent', version: '1.0.0' }), {
    tracerProvider: provider,
    conversationId: () => conversation.id || undefined,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return {
    // The scenes played here use the stable deployment only.
    player: {
      clients: { stable: client, canary: client },
      tracer: provider.getTracer('scripted-agent'),
      conversation,
    },
    flush: async () => {
      // The adapters end a call's spans in the turn after its response.
      await new Promise((resolve) => setImmediate(resolve));
      await provider.forceFlush();
    },
    close: async () => {
      await client.close();
      await provider.shutdown();
      context.disable();
    },
  };
}
