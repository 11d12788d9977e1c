// The fulfilment deployment (fulfilment-tools.ts): an SDK v2 server on the 2026-07-28 revision over Streamable HTTP
// (createMcpHandler, one server instance per request), instrumented with instrumentMcpServer, on `--http PORT`
// (0: a free port), printing its URL. Spans go to OTEL_EXPORTER_OTLP_ENDPOINT; SIGTERM flushes them and exits.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { instrumentMcpServer } from '@toolscope/instrument';
import { setupToolscope } from '@toolscope/instrument/setup';
import { z } from 'zod';
import { fulfilmentServer } from './fulfilment-tools.js';

const argsSchema = z.object({
  http: z.coerce.number().int().min(0).max(65_535).default(0),
  host: z.string().min(1).default('127.0.0.1'),
});
const { values } = parseArgs({
  options: { http: { type: 'string' }, host: { type: 'string' } },
  strict: true,
});
const parsed = argsSchema.safeParse({
  ...values,
  http: values.http ?? process.env.ORDERS_HTTP_PORT,
});
if (!parsed.success) {
  const issue = parsed.error.issues[0];
  process.stderr.write(`orders-mcp: --${issue?.path.join('.')}: ${issue?.message}\n`);
  process.exit(2);
}
const { http, host } = parsed.data;

const sdk = setupToolscope({ serviceName: 'orders-mcp-fulfilment' });
const toolVersions = { order_export: '1', order_cancel: '1' };
const handler = toNodeHandler(
  createMcpHandler(() =>
    fulfilmentServer((server) => instrumentMcpServer(server, { toolVersions })),
  ),
);

const listener = createServer((req, res) => {
  if (req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  // Node's own request: `method` is always set on a server's request, though typed as optional.
  void handler(req as Parameters<typeof handler>[0], res);
});

async function stop(): Promise<never> {
  listener.close();
  await sdk.shutdown();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

listener.listen(http, host, () => {
  const { port } = listener.address() as AddressInfo;
  process.stdout.write(`orders-mcp (fulfilment) listening on http://${host}:${port}/mcp\n`);
});
