// The orders server over Streamable HTTP (docs/mcp.md): 2026-07-28 requests each get an instance of their own
// (createMcpHandler), 2025 clients keep a session with the instance that saw their `initialize`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { setupToolscope } from '@toolscope/instrument/setup';
import { ordersServer } from './mcp-v2-orders.js';

setupToolscope({ serviceName: 'orders-mcp' });
const modern = toNodeHandler(createMcpHandler(ordersServer, { legacy: 'reject' }));
const sessions = new Map<string, NodeStreamableHTTPServerTransport>();

async function legacySession(req: IncomingMessage) {
  const id = req.headers['mcp-session-id'];
  const open = typeof id === 'string' ? sessions.get(id) : undefined;
  if (open) return open;
  const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => {
      sessions.set(sessionId, transport);
    },
    onsessionclosed: (sessionId) => {
      sessions.delete(sessionId);
    },
  });
  await ordersServer().connect(transport);
  return transport;
}

const http = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    res.writeHead(400).end('invalid JSON');
    return;
  }
  const nodeReq = req as NodeIncomingMessageLike; // the cast is for exactOptionalPropertyTypes only
  if (await isLegacyRequest(await toWebRequest(nodeReq, body), body)) {
    await (await legacySession(req)).handleRequest(req, res, body);
  } else {
    await modern(nodeReq, res, body);
  }
});
http.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`orders-mcp on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
