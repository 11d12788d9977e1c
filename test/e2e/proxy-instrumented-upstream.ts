// An instrumented MCP server over stdio (instrumentMcpServer, spans over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT), run
// as the proxy's child to show the chain agent → proxy → server and the hashes both sides agree on.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { instrumentMcpServer } from '@toolscope/instrument';
import { setupToolscope } from '@toolscope/instrument/setup';
import { z } from 'zod';

const sdk = setupToolscope({ serviceName: 'instrumented-upstream' });
const server = instrumentMcpServer(new McpServer({ name: 'instrumented-upstream', version: '1' }));
server.registerTool('lookup', { inputSchema: { key: z.string() } }, async ({ key }) => ({
  content: [{ type: 'text', text: `value of ${key}` }],
}));
const transport = new StdioServerTransport();
const stop = () => {
  void sdk.shutdown().then(() => process.exit(0));
};
transport.onclose = stop;
// The stdio shutdown is stdin closed, then SIGTERM after a grace (the proxy's is 2 s): a server still flushing
// its spans then (a busy machine) stops as cleanly on the signal.
process.on('SIGTERM', stop);
await server.connect(transport);
