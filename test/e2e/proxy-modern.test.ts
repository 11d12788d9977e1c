// `toolscope-proxy` in front of a server on the MCP SDK's v2 line in the stateless 2026-07-28 revision, with the
// v2 client negotiating it (`versionNegotiation: 'auto'`): over stdio (`serveStdio`; the client probes
// `server/discover` on a sibling process, so the session's proxy names the client from each request's `_meta`)
// and over HTTP (`createMcpHandler`), in one long-lived proxy that first serves a 2025 session of an SDK 1.x
// server behind the same URL. Each call is one span, named by its own server, client and protocol version.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Call, reader, type Span } from './proxy-collector.js';
import { builtProxy, type ChildTransport, httpProxy, V2_UPSTREAM } from './proxy-process.js';
import { forecastServer } from './proxy-v2-upstream.mjs';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-modern-'));
const env = { TOOLSCOPE_HASH_KEY: 'proxy-modern-key' };
const MODERN = '2026-07-28';
const PLACEHOLDER = 'unknown_service:toolscope-proxy';
let collector: Collector;
let r: ReturnType<typeof reader>;
const children: ChildTransport[] = [];

// The upstream behind one URL for the whole file: what serves it is swapped, as a redeploy would.
let serve: (req: IncomingMessage, res: ServerResponse) => void;
const headersSeen: IncomingMessage['headers'][] = [];
let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  collector = await startCollector({
    db: join(dir, 'modern.db'),
    port: 0,
    hashKey: env.TOOLSCOPE_HASH_KEY,
  });
  r = reader(collector.url);
  upstream = createServer((req, res) => {
    headersSeen.push(req.headers);
    serve(req, res);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  upstream.closeAllConnections();
  upstream.close();
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The spans of `tool`'s calls made by `client`, once there are `n` (read after their proxy flushed and exited). */
async function spansOf(tool: string, client: string, n: number): Promise<Span[]> {
  for (;;) {
    const calls = (await r.callsOf(tool, 0)).filter((c: Call) => c.clientName === client);
    if (calls.length >= n) return Promise.all(calls.map((c) => r.spanOf(c)));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A 2025-era server on SDK 1.x with sessions, as `StreamableHTTPServerTransport` serves one. */
function legacySessions(name: string, version: string) {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  return async (req: IncomingMessage, res: ServerResponse) => {
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!transport) {
      const made = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void transports.set(id, made),
      });
      const server = new McpServer({ name, version });
      server.registerTool(
        'get_forecast',
        { inputSchema: { city: z.string(), days: z.number().int().min(1).max(7) } },
        async ({ city, days }) => ({
          content: [{ type: 'text', text: `${days} days in ${city}` }],
        }),
      );
      await server.connect(made);
      transport = made;
    }
    await transport.handleRequest(req, res);
  };
}

describe('the proxy in the 2026-07-28 revision', () => {
  // The waits are on the session's answers and the proxy's exit; the bound only catches a hang (three processes
  // start here, past the default 20 s on a loaded machine).
  it('over stdio: names the v2 server, and the v2 client and protocol from each request’s _meta', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: builtProxy([
        ...['--otlp-endpoint', collector.url, '--'],
        ...[process.execPath, V2_UPSTREAM, 'forecast', '2.4.1'],
      ]),
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'pipe',
    });
    const stderr = transport.stderr;
    // Read to its end, which is the proxy's exit (its spans flushed).
    stderr?.on('data', () => {});
    const ended = new Promise((resolve) => stderr?.on('end', resolve));
    const client = new ClientV2(
      { name: 'stdio-agent', version: '3.1.4' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await client.listTools();
    const ok = await client.callTool({
      name: 'get_forecast',
      arguments: { city: 'Oslo', days: 2 },
    });
    expect(ok.content).toEqual([{ type: 'text', text: '2 days of sun in Oslo' }]);
    const bad = await client.callTool({
      name: 'get_forecast',
      arguments: { city: 'Oslo', days: 0 },
    });
    expect(bad.isError).toBe(true);
    // Exported while the session is open: the client stops the proxy with SIGTERM 2 s after closing its stdin,
    // and a collector's first answer can take about that long.
    await spansOf('get_forecast', 'stdio-agent', 2);
    await client.close();
    await ended;

    const spans = await spansOf('get_forecast', 'stdio-agent', 2);
    // One span per call, the whole session one conversation of the proxy's making (no traceparent came).
    expect(spans).toHaveLength(2);
    const conversation = spans[0]?.attributes['gen_ai.conversation.id'];
    expect(conversation).toMatch(/^[0-9a-f-]{36}$/);
    for (const span of spans) {
      expect(span.resource).toMatchObject({
        'service.name': 'forecast',
        'service.version': '2.4.1',
      });
      expect(span.attributes).toMatchObject({
        'mcp.protocol.version': MODERN,
        'toolscope.mcp.client.name': 'stdio-agent',
        'toolscope.mcp.client.version': '3.1.4',
        'network.transport': 'pipe',
        'gen_ai.conversation.id': conversation,
      });
      expect(span.attributes['mcp.session.id']).toBeUndefined();
    }
    const refused = spans.find((s) => s.attributes['toolscope.error.code']);
    expect(refused?.attributes['toolscope.error.code']).toBe('INVALID_INPUT');
    expect(JSON.parse(String(refused?.attributes['toolscope.validation.issues']))).toEqual([
      { path: 'days', code: 'too_small', message: 'Too small: expected number to be >=1' },
    ]);
  }, 90_000);

  it('a long-lived HTTP proxy names each session: a 2025 one of SDK 1.x, then a 2026-07-28 one of SDK 2', async () => {
    serve = legacySessions('orders', '1.4.0');
    const { proxy, url } = httpProxy(collector.url, upstreamUrl, env);
    children.push(proxy);
    const proxied = new URL(await url);

    const legacy = new Client({ name: 'legacy-agent', version: '1.0.0' });
    const legacyTransport = new StreamableHTTPClientTransport(proxied);
    await legacy.connect(legacyTransport);
    await legacy.listTools();
    await legacy.callTool({ name: 'get_forecast', arguments: { city: 'Oslo', days: 2 } });
    const session = legacyTransport.sessionId;
    expect(session).toBeTruthy();
    await legacyTransport.terminateSession();
    await legacy.close();

    // Redeployed behind the same URL: a v2 server, both eras from one factory.
    const handler = createMcpHandler(() => forecastServer('orders-next', '2.0.0'));
    const node = toNodeHandler(handler);
    // Node's own request: `method` is always set on a server's request, though typed as optional.
    serve = (req, res) => void node(req as Parameters<typeof node>[0], res);
    const modern = new ClientV2(
      { name: 'modern-agent', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await modern.connect(new HttpV2(proxied));
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
    await modern.listTools();
    await modern.callTool({ name: 'get_forecast', arguments: { city: 'Bergen', days: 3 } });
    const refused = await modern.callTool({
      name: 'get_forecast',
      arguments: { city: 'Bergen', days: 9 },
    });
    expect(refused.isError).toBe(true);
    // The client's Mcp-Method and Mcp-Name headers reached the server as it sent them.
    expect(headersSeen.at(-1)).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'get_forecast',
    });
    await modern.close();

    // A body whose Mcp-Name header names another tool: the server refuses it, and the proxy records the call the
    // body asked for (the one the server judged), never the header's.
    const mismatch = await fetch(proxied, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'delete_everything',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'get_forecast',
          arguments: { city: 'Oslo', days: 1 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': { name: 'raw-agent', version: '0.1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ error: { code: -32020 } });
    expect(headersSeen.at(-1)).toMatchObject({ 'mcp-name': 'delete_everything' });

    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    await handler.close();

    const [old] = await spansOf('get_forecast', 'legacy-agent', 1);
    expect(old?.resource).toMatchObject({ 'service.name': 'orders', 'service.version': '1.4.0' });
    expect(old?.attributes).toMatchObject({
      'mcp.protocol.version': expect.stringMatching(/^2025-/),
      'mcp.session.id': session,
      'toolscope.mcp.client.version': '1.0.0',
      'network.transport': 'tcp',
    });
    const next = await spansOf('get_forecast', 'modern-agent', 2);
    expect(next).toHaveLength(2);
    for (const span of next) {
      expect(span.resource).toMatchObject({
        'service.name': 'orders-next',
        'service.version': '2.0.0',
      });
      expect(span.attributes).toMatchObject({
        'mcp.protocol.version': MODERN,
        'toolscope.mcp.client.version': '2.0.0',
      });
      expect(span.attributes['mcp.session.id']).toBeUndefined();
    }
    // The 2025 session and the connection of the 2026-07-28 client are two conversations.
    const conversations = new Set(next.map((s) => s.attributes['gen_ai.conversation.id']));
    expect(conversations.size).toBe(1);
    expect(conversations.has(old?.attributes['gen_ai.conversation.id'])).toBe(false);
    const [raw] = await spansOf('get_forecast', 'raw-agent', 1);
    expect(raw?.attributes).toMatchObject({
      'gen_ai.tool.name': 'get_forecast',
      'error.type': '-32020',
    });
    expect((await r.callsOf('delete_everything', 0)).length).toBe(0);
    // Every service the collector knows is a server's own name.
    const { servers } = await r.api<{ servers: { service: string }[] }>('/api/tools?since=1h');
    const services = servers.map((s) => s.service);
    expect(services).toEqual(expect.arrayContaining(['orders', 'orders-next']));
    expect(services).not.toContain(PLACEHOLDER);
    // The tool page counts the calls per client the proxy named, in either era.
    const page = await r.api<{ clients: unknown[] }>('/api/tools/get_forecast?since=1h');
    expect(page.clients).toEqual(
      expect.arrayContaining([
        {
          name: 'modern-agent',
          version: '2.0.0',
          calls: 2,
          errors: 1,
          errorRate: 0.5,
          topCode: 'INVALID_INPUT',
        },
        {
          name: 'legacy-agent',
          version: '1.0.0',
          calls: 1,
          errors: 0,
          errorRate: 0,
          topCode: null,
        },
        { name: 'raw-agent', version: '0.1', calls: 1, errors: 1, errorRate: 1, topCode: 'FAILED' },
      ]),
    );
  });
});
