// One MCP server for the transport tests: a defineTool tool (registered after instrumentation), and plain SDK
// tools registered before (tool()) and after (registerTool), one of which reports isError and one throws.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TracerProvider } from '@opentelemetry/api';
import { z } from 'zod';
import { defineTool, instrumentMcpServer, registerMcpTool } from '../../src/index.js';

export const getOrder = defineTool({
  name: 'get_order',
  version: '2',
  effect: 'read',
  description: 'Orders of one customer',
  input: z
    .object({
      customerId: z.string().min(1).describe('Customer identifier such as "cus_1"'),
      includeHistory: z.boolean().default(false).describe('Also return cancelled orders'),
    })
    .strict(),
  output: z.object({
    customerId: z.string(),
    orders: z.array(z.object({ id: z.string(), status: z.enum(['pending', 'paid', 'cancelled']) })),
  }),
  hashKey: 'mcp-test',
  execute: ({ customerId }) => ({ customerId, orders: [{ id: 'ord_1', status: 'paid' as const }] }),
});

export function buildServer(tracerProvider?: TracerProvider): McpServer {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' });
  // Registered before instrumentation, in the older tool() form.
  server.tool('legacy_echo', 'Echoes text', { text: z.string() }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  instrumentMcpServer(server, {
    ...(tracerProvider ? { tracerProvider } : {}),
    hashKey: 'mcp-test',
  });
  // Registered after instrumentation.
  server.registerTool(
    'broken',
    { description: 'Always fails', inputSchema: { id: z.string() } },
    async () => ({
      content: [{ type: 'text', text: 'upstream exploded' }],
      isError: true,
    }),
  );
  server.registerTool('thrower', { description: 'Throws' }, async () => {
    throw new Error('handler crashed');
  });
  registerMcpTool(server, getOrder);
  return server;
}
