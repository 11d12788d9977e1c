// An MCP server on the SDK's low-level `Server` over stdio, run as the proxy's child in the proxy tests: it breaks
// its own outputSchema (`count_items`), shows the `_meta` it received (`show_meta`), and can die mid-call (`crash`).
// Plain JavaScript: no loader to start (under tsx a start took 1.6 s of CPU, as plain JavaScript 0.6 s).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'liar', version: '3.1.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'count_items',
      description: 'Counts the items of a box',
      inputSchema: { type: 'object', properties: { box: { type: 'string' } } },
      outputSchema: {
        type: 'object',
        properties: { count: { type: 'number' } },
        required: ['count'],
      },
      annotations: { readOnlyHint: true },
    },
    { name: 'show_meta', inputSchema: { type: 'object' } },
    { name: 'crash', inputSchema: { type: 'object' } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'count_items':
      return {
        content: [{ type: 'text', text: 'many' }],
        structuredContent: { count: 'many-secret' },
      };
    case 'show_meta':
      return { content: [{ type: 'text', text: JSON.stringify(request.params._meta ?? null) }] };
    case 'crash':
      // A server that dies with a call in flight, as a crash or an OOM kill would leave it.
      process.kill(process.pid, 'SIGKILL');
      return { content: [] };
    default:
      return {
        content: [{ type: 'text', text: `unknown tool ${request.params.name}` }],
        isError: true,
      };
  }
});
await server.connect(new StdioServerTransport());
