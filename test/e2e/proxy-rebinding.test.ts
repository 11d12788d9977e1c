// DNS rebinding through the HTTP proxy: in front of an SDK server made with `createMcpExpressApp()` (which
// refuses a foreign Host itself), a request with a foreign Host or a foreign browser Origin is refused by the
// proxy with the tool not run; a request addressed to the proxy by a local name runs; and a name the operator
// allowed on the proxy reaches the upstream as the client sent it, so the upstream's own Host check still judges.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_HEADERS, send, startHttpProxy, stopProxy, toolCall } from './proxy-hostile.js';
import type { ChildTransport } from './proxy-process.js';

let upstream: Server;
let upstreamUrl: string;
let ran = 0;
const proxies: ChildTransport[] = [];

beforeAll(async () => {
  // The SDK's own app: bound to 127.0.0.1, it applies its localhost Host validation.
  const app = createMcpExpressApp();
  // (Express's own types are not installed: the request and answer are Node's, with the parsed body.)
  app.post('/mcp', async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const server = new McpServer({ name: 'guarded', version: '1.0.0' });
    server.registerTool('touch', { inputSchema: {} }, async () => {
      ran++;
      return { content: [{ type: 'text', text: 'touched' }] };
    });
    // No session id generator: stateless, a fresh server per request.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  upstream = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  for (const p of proxies) p.child.kill('SIGKILL');
  upstream.close();
});

async function proxy(flags: string[] = []) {
  const started = startHttpProxy(upstreamUrl, ['--otlp-endpoint', 'http://127.0.0.1:9', ...flags]);
  proxies.push(started.proxy);
  const url = await started.url;
  return { ...started, url, port: new URL(url).port };
}

/** A tools/call of `touch` with these extra headers; the answer, and whether the tool ran. */
async function touch(url: string, headers: Record<string, string>) {
  const before = ran;
  const answer = await send(url, {
    headers: { ...MCP_HEADERS, ...headers },
    body: toolCall(1, 'touch'),
  });
  return { ...answer, ran: ran - before };
}

describe('the HTTP proxy against DNS rebinding', () => {
  it('refuses a foreign Host or a foreign browser Origin, and the upstream tool never runs', async () => {
    // The upstream's own check, straight: what the proxy must not undo.
    const direct = await touch(upstreamUrl, { host: 'attacker.example' });
    expect(direct).toMatchObject({ status: 403, ran: 0 });
    expect(direct.body).toContain('Invalid Host: attacker.example');

    const p = await proxy();
    const rebound = await touch(p.url, { host: `attacker.example:${p.port}` });
    expect(rebound).toMatchObject({ status: 403, ran: 0 });
    expect(JSON.parse(rebound.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Invalid Host: attacker.example' },
      id: null,
    });
    // A rebound page that reaches the proxy by its address still carries its own Origin.
    const cross = await touch(p.url, {
      host: `127.0.0.1:${p.port}`,
      origin: 'http://attacker.example',
    });
    expect(cross).toMatchObject({ status: 403, ran: 0 });
    expect(cross.body).toContain('Invalid Origin: attacker.example');

    // Addressed by a local name, from a client without Origin or from a local page: the call runs.
    const plain = await touch(p.url, { host: `localhost:${p.port}` });
    expect(plain).toMatchObject({ status: 200, ran: 1 });
    expect(plain.body).toContain('touched');
    const localPage = await touch(p.url, {
      host: `127.0.0.1:${p.port}`,
      origin: 'http://localhost:6274',
    });
    expect(localPage).toMatchObject({ status: 200, ran: 1 });

    const log = await stopProxy(p.proxy);
    expect(log.find((l) => l.msg === 'http traffic')).toMatchObject({
      refusedHost: 1,
      refusedOrigin: 1,
    });
    expect(log.filter((l) => l.msg === 'request refused (DNS-rebinding protection)')).toHaveLength(
      2,
    );
  });

  it('passes a name allowed on the proxy on as the client sent it: the upstream’s own check still judges', async () => {
    const p = await proxy(['--allowed-hosts', 'mcp.test']);
    const named = await touch(p.url, { host: `mcp.test:${p.port}` });
    // The proxy let it through; the upstream, which serves only localhost, refused it as it would directly.
    expect(named).toMatchObject({ status: 403, ran: 0 });
    expect(named.body).toContain('Invalid Host: mcp.test');
    // Its local name is still the upstream's own.
    expect(await touch(p.url, { host: `127.0.0.1:${p.port}` })).toMatchObject({
      status: 200,
      ran: 1,
    });
    await stopProxy(p.proxy);
  });
});
