// The orders server of docs/mcp.md on SDK 1.x: stdio, or Streamable HTTP sessions on PORT when it is set.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { instrumentMcpServer, registerMcpTool } from '@toolscope/instrument';
import { setupToolscope } from '@toolscope/instrument/setup';
import { z } from 'zod';
import { getOrder } from './mcp-v2-get-order.js';

function ordersServer(): McpServer {
  const server = instrumentMcpServer(new McpServer({ name: 'orders', version: '1.3.0' }));
  server.registerTool(
    'mean',
    {
      description: 'Mean of a list of numbers',
      inputSchema: { values: z.array(z.number()) },
      outputSchema: { mean: z.number() },
    },
    async ({ values }) => {
      const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
      return { content: [{ type: 'text', text: String(mean) }], structuredContent: { mean } };
    },
  );
  registerMcpTool(server, getOrder);
  return server;
}

setupToolscope({ serviceName: 'orders-mcp' });
if (process.env.PORT === undefined) {
  await ordersServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      await ordersServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  http.listen(Number(process.env.PORT), '127.0.0.1', () => {
    console.log(`orders-mcp on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  });
}
