// The example MCP server: the tools registered with registerMcpTool on an instrumented McpServer,
// served over stdio (default) or Streamable HTTP (`--http PORT`). Spans go to OTEL_EXPORTER_OTLP_ENDPOINT.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { instrumentMcpServer, registerMcpTool } from '@toolscope/instrument';
import { setupToolscope } from '@toolscope/instrument/setup';
import { z } from 'zod';
import { toolsOf, VARIANTS } from './tools.js';

const argsSchema = z.object({
  http: z.coerce.number().int().min(0).max(65_535).optional(),
  host: z.string().min(1).default('127.0.0.1'),
  variant: z.enum(VARIANTS).default('stable'),
});

const { values } = parseArgs({
  options: { http: { type: 'string' }, host: { type: 'string' }, variant: { type: 'string' } },
  strict: true,
});
const parsed = argsSchema.safeParse({
  ...values,
  variant: values.variant ?? process.env.ORDERS_VARIANT,
  http: values.http ?? process.env.ORDERS_HTTP_PORT,
});
if (!parsed.success) {
  const issue = parsed.error.issues[0];
  process.stderr.write(`orders-mcp: --${issue?.path.join('.')}: ${issue?.message}\n`);
  process.exit(2);
}
const { http, host, variant } = parsed.data;

const sdk = setupToolscope({ serviceName: `orders-mcp-${variant}` });

function buildServer(): McpServer {
  const server = instrumentMcpServer(new McpServer({ name: 'orders', version: '2.0.0' }));
  for (const tool of toolsOf(variant)) registerMcpTool(server, tool);
  return server;
}

async function stop(): Promise<never> {
  await sdk.shutdown();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

if (http === undefined) {
  const transport = new StdioServerTransport();
  transport.onclose = () => void stop();
  await buildServer().connect(transport);
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const listener = createServer(async (req, res) => {
    if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await buildServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  listener.listen(http, host, () => {
    const address = listener.address();
    const port = typeof address === 'object' && address ? address.port : http;
    process.stdout.write(`orders-mcp (${variant}) listening on http://${host}:${port}/mcp\n`);
  });
}
