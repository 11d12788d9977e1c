// `toolscope-proxy --upstream URL --port N` in front of real HTTP servers: server-everything from npm over
// Streamable HTTP (sessions, answers as Server-Sent Events) and over the older HTTP+SSE transport, and an SDK
// server without sessions (JSON answers), through the SDK's own client transports. The listing is the server's own, each call one span with the session, and SIGTERM
// stops the proxy with its spans flushed.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reader } from './proxy-collector.js';
import { ChildTransport, EVERYTHING, httpProxy, waitFor } from './proxy-process.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-http-'));
const env = { TOOLSCOPE_HASH_KEY: 'proxy-http-key' };
let collector: Collector;
let stateless: Server;
const children: ChildTransport[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

function startProxy(upstream: string): { proxy: ChildTransport; url: Promise<string> } {
  const started = httpProxy(collector.url, upstream, env);
  children.push(started.proxy);
  return started;
}

async function connect(url: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'http-agent', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

beforeAll(async () => {
  collector = await startCollector({
    db: join(dir, 'http.db'),
    port: 0,
    hashKey: env.TOOLSCOPE_HASH_KEY,
  });
  // The SDK's stateless mode (no session id generator): a fresh server per request, JSON answers.
  stateless = createHttpServer(async (req, res) => {
    const server = new McpServer({ name: 'stateless-counter', version: '2.0.0' });
    server.registerTool(
      'add',
      { inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => stateless.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  stateless.close();
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('toolscope-proxy over Streamable HTTP', () => {
  it('serves server-everything on its own path, with sessions, and traces each call', async () => {
    const port = await freePort();
    const everything = new ChildTransport(process.execPath, [EVERYTHING, 'streamableHttp'], {
      PORT: String(port),
    });
    children.push(everything);
    await waitFor(everything, /listening on port/);
    const upstream = `http://127.0.0.1:${port}/mcp`;
    const plain = await connect(upstream);
    const expected = await plain.client.listTools();
    await plain.client.close();

    const { proxy, url } = startProxy(upstream);
    const proxied = await url;
    expect(new URL(proxied).pathname).toBe('/mcp');
    expect((await fetch(new URL('/other', proxied))).status).toBe(404);
    const { client, transport } = await connect(proxied);
    expect(await client.listTools()).toEqual(expected);
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'over http' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
    const session = transport.sessionId;
    expect(session).toBeTruthy();
    await transport.terminateSession();
    await client.close();
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    expect(proxy.stderr).toContain('"msg":"spans flushed"');

    const { callsOf, spanOf, api } = reader(collector.url);
    const [call] = await callsOf('echo', 1);
    const span = await spanOf(call as NonNullable<typeof call>);
    expect(span.resource['service.name']).toBe('mcp-servers/everything');
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'echo',
      'network.transport': 'tcp',
      'mcp.session.id': session,
      'toolscope.proxy': true,
      'toolscope.mcp.client.name': 'http-agent',
      'toolscope.output.hash': expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const { contracts } = await api<{ contracts: unknown[] }>('/api/tools/get-sum/contracts');
    expect(contracts.length).toBeGreaterThan(0);
  });

  it('serves server-everything over the older HTTP+SSE transport: its stream, its message endpoint', async () => {
    const port = await freePort();
    const everything = new ChildTransport(process.execPath, [EVERYTHING, 'sse'], {
      PORT: String(port),
    });
    children.push(everything);
    await waitFor(everything, /running on port/);
    const { proxy, url } = startProxy(`http://127.0.0.1:${port}/sse`);
    const client = new Client({ name: 'sse-agent', version: '1' });
    await client.connect(new SSEClientTransport(new URL(await url)));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'over sse' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: over sse' }]);
    await client.close();
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    const { callsOf, spanOf } = reader(collector.url);
    const calls = await callsOf('echo', 2);
    const spans = await Promise.all(calls.map((c) => spanOf(c)));
    const sse = spans.find((s) => s.attributes['toolscope.mcp.client.name'] === 'sse-agent');
    expect(sse?.attributes).toMatchObject({
      'network.transport': 'tcp',
      'mcp.session.id': expect.any(String),
      'toolscope.output.hash': expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it('answers 502 when the upstream is unreachable, and the call in flight ends as upstream_exited', async () => {
    const closed = await freePort();
    const { proxy, url } = startProxy(`http://127.0.0.1:${closed}/mcp`);
    const res = await fetch(await url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'gone_tool', arguments: {} },
      }),
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: -32603 } });
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    const { callsOf, spanOf } = reader(collector.url);
    const [call] = await callsOf('gone_tool', 1);
    expect((await spanOf(call as NonNullable<typeof call>)).attributes).toMatchObject({
      'error.type': 'upstream_exited',
      'network.transport': 'tcp',
    });
  });

  it('serves a server that keeps no sessions, answering JSON: no session id on its spans', async () => {
    const { port } = stateless.address() as AddressInfo;
    const { proxy, url } = startProxy(`http://127.0.0.1:${port}/mcp`);
    const { client } = await connect(await url);
    await client.listTools();
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(sum.content).toEqual([{ type: 'text', text: '5' }]);
    await client.close();
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);
    const { callsOf, spanOf } = reader(collector.url);
    const [call] = await callsOf('add', 1);
    const span = await spanOf(call as NonNullable<typeof call>);
    expect(span.attributes['mcp.session.id']).toBeUndefined();
    expect(span.attributes).toMatchObject({
      'toolscope.input.shape': 'a:number,b:number',
      'toolscope.schema.hash': expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });
});
