// The bench's upstream: an SDK McpServer over stdio with one plain tool, as small as a real server gets.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
server.registerTool(
  'get_order',
  {
    inputSchema: { customerId: z.string(), includeHistory: z.boolean() },
    outputSchema: {
      customerId: z.string(),
      orders: z.array(z.object({ id: z.string(), status: z.string() })),
    },
    annotations: { readOnlyHint: true },
  },
  async ({ customerId }) => {
    const data = { customerId, orders: [{ id: 'ord_1', status: 'paid' }] };
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  },
);
await server.connect(new StdioServerTransport());
