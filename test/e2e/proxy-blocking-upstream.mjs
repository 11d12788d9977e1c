// An MCP server (SDK 1.x, stdio) whose `block` tool holds its process for `ms` milliseconds, so calls queue up
// and are in flight when the client closes stdin; `probe` answers at once. Plain JavaScript: no loader to start.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'blocking', version: '1.0.0' });
const pause = new Int32Array(new SharedArrayBuffer(4));
server.registerTool('block', { inputSchema: { ms: z.number() } }, async ({ ms }) => {
  Atomics.wait(pause, 0, 0, ms);
  return { content: [{ type: 'text', text: `blocked ${ms} ms` }] };
});
server.registerTool('probe', { inputSchema: {} }, async () => ({
  content: [{ type: 'text', text: 'probed' }],
}));
await server.connect(new StdioServerTransport());
