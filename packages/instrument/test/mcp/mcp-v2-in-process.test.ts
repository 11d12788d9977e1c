// SDK v2 specifics that need no second process (trace propagation is tested across processes in mcp-v2-stdio and
// mcp-v2-http): what a throwing handler leaves on its span, also after the SDK's `update()` replaced it; the path
// of a result that breaks the tool's own outputSchema (SDK 1.x too); a low-level `Server`; an unknown tool, which v2 answers with a protocol error; and over Streamable HTTP, the
// request's trace headers as links beside the `_meta` parent.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer, Server } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instrumentMcpClient, instrumentMcpServer } from '../../src/index.js';
import { createTracing } from '../tracing.js';

const tracing = createTracing();
const options = { tracerProvider: tracing.provider, hashKey: 'mcp-v2-in-process' };
const servers = (name: string) =>
  tracing.spans().filter((s) => s.name === `tools/call ${name}` && s.kind === 1);

class QuotaError extends Error {
  override name = 'QuotaError';
}

async function connected(server: McpServer | Server) {
  const client = instrumentMcpClient(new Client({ name: 'agent', version: '3.1' }), options);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

describe('SDK v2 in one process', () => {
  it('keeps what a handler threw, also after update() gave the tool a new handler', async () => {
    const server = instrumentMcpServer(new McpServer({ name: 's', version: '1' }), options);
    const tool = server.registerTool('quota', { inputSchema: z.object({ n: z.number() }) }, () => {
      throw new QuotaError('quota spent');
    });
    const client = await connected(server);
    await client.callTool({ name: 'quota', arguments: { n: 1 } });
    tool.update({
      callback: async () => {
        throw new TypeError('second handler');
      },
    });
    await client.callTool({ name: 'quota', arguments: { n: 2 } });
    await client.close();
    await tracing.settled();
    const [first, second] = servers('quota');
    for (const [span, type] of [
      [first, 'QuotaError'],
      [second, 'TypeError'],
    ] as const) {
      expect(span?.attributes['toolscope.error.code']).toBe('FAILED');
      expect(span?.events.find((e) => e.name === 'exception')?.attributes).toMatchObject({
        'exception.type': type,
      });
    }
  });

  it('records a result that breaks its own outputSchema at the path that failed, on both majors', async () => {
    const { McpServer: McpServerV1 } = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const { Client: ClientV1 } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport: MemoryV1 } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const v2 = instrumentMcpServer(new McpServer({ name: 'v2', version: '1' }), options);
    const v1 = instrumentMcpServer(new McpServerV1({ name: 'v1', version: '1' }), options);
    const stats = { outputSchema: z.object({ mean: z.number(), n: z.number() }) };
    v2.registerTool('stats_v2', stats, () => ({
      content: [],
      structuredContent: { mean: 'NaN', n: 0 },
    }));
    v1.registerTool('stats_v1', { outputSchema: stats.outputSchema.shape }, () => ({
      content: [],
      structuredContent: { mean: 'NaN', n: 0 } as unknown as { mean: number; n: number },
    }));
    const c2 = await connected(v2);
    await c2.callTool({ name: 'stats_v2', arguments: {} });
    const c1 = new ClientV1({ name: 'agent', version: '1' });
    const [a, b] = MemoryV1.createLinkedPair();
    await Promise.all([v1.connect(b), c1.connect(a)]);
    await c1.callTool({ name: 'stats_v1', arguments: {} });
    await Promise.all([c1.close(), c2.close()]);
    await tracing.settled();
    for (const name of ['stats_v1', 'stats_v2']) {
      const attributes = servers(name)[0]?.attributes;
      expect(attributes?.['toolscope.error.code'], name).toBe('INVALID_OUTPUT');
      const issues = JSON.parse(String(attributes?.['toolscope.validation.issues']));
      expect(issues, name).toEqual([
        expect.objectContaining({ path: 'mean', code: 'invalid_type' }),
      ]);
    }
  });

  it('traces a low-level Server and records an unknown tool as invalid params', async () => {
    const low = instrumentMcpServer(
      new Server({ name: 'low', version: '1' }, { capabilities: { tools: {} } }),
      options,
    );
    low.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }],
    }));
    low.setRequestHandler('tools/call', (request) => ({
      content: [{ type: 'text' as const, text: String(request.params.name) }],
    }));
    const client = await connected(low);
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await client.close();

    const high = instrumentMcpServer(new McpServer({ name: 'high', version: '1' }), options);
    high.registerTool('known', {}, () => ({ content: [] }));
    const other = await connected(high);
    await expect(other.callTool({ name: 'missing', arguments: {} })).rejects.toThrow();
    await other.close();
    await tracing.settled();

    expect(servers('echo')[0]?.attributes).toMatchObject({
      'toolscope.schema.version': 'unversioned',
      'toolscope.input.shape': 'text:string',
      'toolscope.mcp.client.name': 'agent',
      'toolscope.mcp.client.version': '3.1',
      'jsonrpc.request.id': expect.any(String),
    });
    expect(servers('missing')[0]?.attributes).toMatchObject({
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
  });
});

describe('SDK v2 over Streamable HTTP in one process', () => {
  let http: HttpServer | undefined;
  afterAll(() => new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve())));

  it('links the HTTP request trace headers; _meta stays the parent; the session is named', async () => {
    const transports = new Map<string, NodeStreamableHTTPServerTransport>();
    http = createServer(async (req, res) => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport) {
        const created = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid) => {
            transports.set(sid, created);
          },
        });
        const server = instrumentMcpServer(new McpServer({ name: 'h', version: '1' }), options);
        server.registerTool('ping_tool', {}, () => ({ content: [] }));
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    const header = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    const client = instrumentMcpClient(new Client({ name: 'agent', version: '3.1' }), options);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { traceparent: `00-${header.traceId}-${header.spanId}-01` } },
    });
    await client.connect(transport);
    await client.callTool({ name: 'ping_tool', arguments: {} });
    await client.close();
    await tracing.settled();
    const [span] = servers('ping_tool');
    const [caller] = tracing
      .spans()
      .filter((s) => s.name === 'tools/call ping_tool' && s.kind === 2);
    expect(span?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(span?.links.map((l) => l.context)).toContainEqual(expect.objectContaining(header));
    expect(span?.attributes['network.transport']).toBe('tcp');
    expect(span?.attributes['mcp.session.id']).toEqual(expect.any(String));
  });
});
