import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ProxyTracerProvider, SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { instrumentMcpServer } from './dist/index.js';

const provider = new BasicTracerProvider({
  spanProcessors: [
    new BatchSpanProcessor({ export: (_s, d) => d({ code: 0 }), shutdown: async () => {} }),
  ],
});
const tracer = provider.getTracer('x');
const V = process.env.V ?? 'bare';
const N = Number(process.env.N ?? 0);
const h = async ({ customerId }) => ({ content: [{ type: 'text', text: customerId }] });
const server = new McpServer({ name: 'b', version: '1' });
if (V === 'hand')
  server.registerTool(
    'get_order',
    { inputSchema: { customerId: z.string() } },
    async (args, extra) => {
      const sp = tracer.startSpan('tools/call get_order', {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_order',
          'jsonrpc.request.id': String(extra.requestId),
          'mcp.protocol.version': '2025-11-25',
          'network.transport': 'pipe',
          'toolscope.schema.version': '1',
          'toolscope.schema.hash': '0123456789abcdef',
          'toolscope.attempt': 1,
          'toolscope.effect': 'read',
          'toolscope.partial_effect': false,
          'toolscope.input.shape': 'customerId:string',
        },
      });
      try {
        return await h(args);
      } finally {
        sp.end();
      }
    },
  );
else
  server.registerTool(
    'get_order',
    { inputSchema: { customerId: z.string() }, annotations: { readOnlyHint: true } },
    h,
  );
if (V === 'inst') instrumentMcpServer(server, { tracerProvider: provider, hashKey: 'k' });
if (V === 'noop')
  instrumentMcpServer(server, { tracerProvider: new ProxyTracerProvider(), hashKey: 'k' });
const client = new Client({ name: 'c', version: '1' });
const [a, b] = InMemoryTransport.createLinkedPair();
await Promise.all([server.connect(b), client.connect(a)]);
for (let i = 0; i < 500; i++)
  await client.callTool({ name: 'get_order', arguments: { customerId: 'x' } });
for (let i = 0; i < N; i++)
  await client.callTool({ name: 'get_order', arguments: { customerId: 'x' } });
process.exit(0);
