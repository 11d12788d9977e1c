// The MCP servers of the contracts test: `get_order` v2 with a given output enum, the deprecated
// `catalogue.list`, a tool that throws, a heavy one; and a low-level server that breaks its own outputSchema.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TracerProvider } from '@opentelemetry/api';
import { defineTool, instrumentMcpServer, registerMcpTool } from '@toolscope/instrument';
import { z } from 'zod';

function getOrder(statuses: [string, ...string[]]) {
  return defineTool({
    name: 'get_order',
    version: '2',
    effect: 'read',
    description: 'One order by id',
    input: z.object({ orderId: z.string() }).strict(),
    output: z.object({ orderId: z.string(), status: z.enum(statuses) }),
    execute: ({ orderId }) => ({ orderId, status: 'pending' }),
  });
}

/** A server with `get_order` (its own enum), the deprecated `catalogue.list`, and a tool that throws. */
export function ordersServer(
  service: string,
  statuses: [string, ...string[]],
  tracerProvider: TracerProvider,
) {
  const server = instrumentMcpServer(new McpServer({ name: service, version: '1' }), {
    tracerProvider,
  });
  registerMcpTool(server, getOrder(statuses));
  server.registerTool(
    'catalogue.list',
    {
      description: 'Deprecated: use catalogue.search instead; removed on 2099-03-01.',
      inputSchema: { page: z.number().int() },
    },
    async ({ page }) => ({ content: [{ type: 'text', text: `page ${page}` }] }),
  );
  server.registerTool(
    'get_weather',
    { description: 'Weather of a city', inputSchema: { city: z.string() } },
    async () => {
      throw new Error('weather backend exploded for alice@example.com');
    },
  );
  server.registerTool(
    'bulky_report',
    {
      // About 600 tokens: over this collector's budget of 300, under the default of 1000.
      description: Array.from(
        { length: 60 },
        (_, i) => `Field ${i} explains part ${i} of the report.`,
      ).join(' '),
      inputSchema: { month: z.string() },
    },
    async ({ month }) => ({ content: [{ type: 'text', text: month }] }),
  );
  return server;
}

/** A low-level server that advertises an outputSchema and answers something else: it breaks its contract. */
export function lyingServer() {
  const server = new Server({ name: 'liar', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'count_items',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: {
          type: 'object',
          properties: { count: { type: 'number' } },
          required: ['count'],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    content: [{ type: 'text', text: 'many' }],
    structuredContent: { count: 'many' },
  }));
  return server;
}
