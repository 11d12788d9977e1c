// The orders server of docs/mcp.md on SDK v2: one factory, instrumented, for every transport and both eras.
import { McpServer } from '@modelcontextprotocol/server';
import { instrumentMcpServer, registerMcpTool } from '@toolscope/instrument';
import { z } from 'zod';
import { getOrder } from './mcp-v2-get-order.js';

// Made once, not per server: 2026-07-28 over HTTP makes a server per request, and a new schema object costs the
// SDK its conversions (and the span its schema hash) each time.
const meanInput = z.object({ values: z.array(z.number()) });
const meanOutput = z.object({ mean: z.number() });

export function ordersServer(): McpServer {
  const server = instrumentMcpServer(new McpServer({ name: 'orders', version: '1.4.0' }));
  // A plain SDK tool, traced as it is. The mean of no values is NaN, which breaks its own outputSchema.
  server.registerTool(
    'mean',
    {
      description: 'Mean of a list of numbers',
      inputSchema: meanInput,
      outputSchema: meanOutput,
    },
    async ({ values }) => {
      const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
      return { content: [{ type: 'text', text: String(mean) }], structuredContent: { mean } };
    },
  );
  registerMcpTool(server, getOrder); // a defineTool tool: its Zod contract is the MCP contract
  return server;
}
