// A server on the MCP SDK's v2 line (`@modelcontextprotocol/server` 2.4) written as its docs write one: one
// factory for both eras, served over stdio by `serveStdio` when run as the proxy's child (name and version from
// the command line), and over HTTP by `createMcpHandler` where a test mounts the factory itself. `get_forecast`
// refuses a bad city or day count with the SDK's own validation message. Plain JavaScript: Node starts it without
// a TypeScript loader, and the client's `server/discover` probe starts it twice.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** A fresh server instance (the SDK's entries make one per connection or request). */
export function forecastServer(name = 'forecast', version = '2.4.1') {
  const server = new McpServer({ name, version }, { capabilities: { tools: {} } });
  server.registerTool(
    'get_forecast',
    {
      description: 'The weather for the next days in a city',
      inputSchema: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7) }),
      annotations: { readOnlyHint: true },
    },
    async ({ city, days }) => ({
      content: [{ type: 'text', text: `${days} days of sun in ${city}` }],
    }),
  );
  return server;
}

if (process.argv[1]?.endsWith('proxy-v2-upstream.mjs'))
  serveStdio(() => forecastServer(process.argv[2], process.argv[3]));
