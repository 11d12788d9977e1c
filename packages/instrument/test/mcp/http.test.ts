// MCP over Streamable HTTP on a loopback port, stateful sessions: one trace from client to server, and the
// HTTP request's own trace headers only linked, since _meta wins (OTel MCP semconv).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentMcpClient } from '../../src/index.js';
import { createTracing } from '../tracing.js';
import { buildServer } from './fixture-server.js';
import { checkScenario, runScenario, viewOf } from './scenario.js';

const tracing = createTracing();
let http: Server;
let url: URL;
const HEADER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const HEADER_SPAN = 'b7ad6b7169203331';

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracing.provider);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      await buildServer(tracing.provider).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  trace.disable();
  context.disable();
});

describe('MCP over Streamable HTTP', () => {
  it('traces client and server in one trace; HTTP trace headers are linked, not parents', async () => {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01` } },
    });
    const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), {
      tracerProvider: tracing.provider,
    });
    await client.connect(transport);
    const results = await runScenario(client);
    await transport.terminateSession();
    await client.close();
    const spans = tracing.spans().map(viewOf);
    checkScenario(results, spans);
    const servers = spans.filter((s) => s.kind === 1);
    expect(servers.length).toBeGreaterThan(0);
    for (const s of servers) {
      expect(s.traceId).not.toBe(HEADER_TRACE);
      expect(s.links).toContainEqual({ traceId: HEADER_TRACE, spanId: HEADER_SPAN });
      expect(s.attributes['network.transport']).toBe('tcp');
      expect(typeof s.attributes['mcp.session.id']).toBe('string');
    }
    const clients = spans.filter((s) => s.kind === 2);
    expect(
      clients.every(
        (c) => c.attributes['mcp.session.id'] === servers[0]?.attributes['mcp.session.id'],
      ),
    ).toBe(true);
  });
});
