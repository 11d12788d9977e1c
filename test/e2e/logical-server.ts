// The logical-call tests' SDK v2 server as a process of its own (packages/instrument/test/mcp/logical-tools.ts):
// over Streamable HTTP by createMcpHandler (2026-07-28) on a free port, printing its URL; traced by
// instrumentMcpServer and setupToolscope when INSTRUMENT=1, flushed on SIGTERM.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { instrumentMcpServer } from '@toolscope/instrument';
import { setupToolscope } from '@toolscope/instrument/setup';
import { logicalServer } from '../../packages/instrument/test/mcp/logical-tools.js';

const traced = process.env.INSTRUMENT === '1';
const sdk = traced ? setupToolscope({ serviceName: 'bookings', flushOnExit: false }) : undefined;
const factory = () => logicalServer(traced ? (server) => instrumentMcpServer(server) : undefined);

process.once('SIGTERM', () => {
  void (sdk?.shutdown() ?? Promise.resolve()).then(() => process.exit(0));
});

const handler = toNodeHandler(createMcpHandler(factory));
const http = createServer((req, res) => {
  // Node's own request: `method` is always set on a server's request, though typed as optional.
  void handler(req as Parameters<typeof handler>[0], res);
});
http.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
