// Options of the MCP adapters: conversation ids travel in _meta, skipped tools get no span, capture is
// redacted, and a server that is not an MCP server is refused with a clear error.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '../../src/index.js';
import { createTracing } from '../tracing.js';
import { getOrder } from './fixture-server.js';

async function connect(server: McpServer, client: Client) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
}

describe('MCP adapter options', () => {
  it('carries the conversation id from the client option to both spans', async () => {
    const tracing = createTracing();
    const server = instrumentMcpServer(new McpServer({ name: 's', version: '1' }), {
      tracerProvider: tracing.provider,
    });
    registerMcpTool(server, getOrder);
    server.registerTool('echo', { inputSchema: { t: z.string() } }, async ({ t }) => ({
      content: [{ type: 'text', text: t }],
    }));
    const client = instrumentMcpClient(new Client({ name: 'c', version: '1' }), {
      tracerProvider: tracing.provider,
      conversationId: () => 'conv-42',
    });
    await connect(server, client);
    await client.callTool({ name: 'get_order', arguments: { customerId: 'c' } });
    await client.callTool({ name: 'echo', arguments: { t: 'x' } });
    await client.close();
    await tracing.settled();
    const spans = tracing.spans();
    expect(spans).toHaveLength(4);
    for (const s of spans) expect(s.attributes['gen_ai.conversation.id']).toBe('conv-42');
  });

  it('takes the idempotency key of a write from _meta: a repeat is replayed, not executed again', async () => {
    const tracing = createTracing();
    let executed = 0;
    const place = defineTool({
      name: 'order_intent',
      version: '1',
      effect: 'write',
      description: 'Create an order intent',
      input: z.object({ sku: z.string() }).strict(),
      output: z.object({ intentId: z.string() }),
      tracerProvider: tracing.provider,
      hashKey: 'k',
      execute: () => ({ intentId: `int_${++executed}` }),
    });
    const server = instrumentMcpServer(new McpServer({ name: 's', version: '1' }), {
      tracerProvider: tracing.provider,
    });
    registerMcpTool(server, place);
    const client = new Client({ name: 'c', version: '1' });
    await connect(server, client);
    const call = () =>
      client.callTool({
        name: 'order_intent',
        arguments: { sku: 'sku_1' },
        _meta: { 'toolscope.dev/idempotency-key': 'intent-7' },
      });
    const first = await call();
    const second = await call();
    await client.close();
    await tracing.settled();
    expect(executed).toBe(1);
    expect(second.structuredContent).toEqual(first.structuredContent);
    const spans = tracing.spans();
    expect(spans).toHaveLength(2);
    const keyHash = spans[0]?.attributes['toolscope.idempotency_key.hash'];
    expect(typeof keyHash).toBe('string');
    expect(keyHash).not.toContain('intent-7');
    expect(spans[1]?.attributes['toolscope.idempotency_key.hash']).toBe(keyHash);
    expect(spans[1]?.attributes['toolscope.idempotent_replay']).toBe(true);
  });

  it('makes no span for skipped tools, plain or defineTool', async () => {
    const tracing = createTracing();
    const server = instrumentMcpServer(new McpServer({ name: 's', version: '1' }), {
      tracerProvider: tracing.provider,
      skipTools: ['get_order', 'echo'],
    });
    registerMcpTool(server, getOrder);
    server.registerTool('echo', { inputSchema: { t: z.string() } }, async ({ t }) => ({
      content: [{ type: 'text', text: t }],
    }));
    const client = new Client({ name: 'c', version: '1' });
    await connect(server, client);
    const ok = await client.callTool({ name: 'get_order', arguments: { customerId: 'c' } });
    await client.callTool({ name: 'echo', arguments: { t: 'x' } });
    await client.close();
    await tracing.settled();
    expect(ok.structuredContent).toMatchObject({ customerId: 'c' });
    expect(tracing.spans()).toHaveLength(0);
  });

  it('captures redacted arguments and results when asked', async () => {
    const tracing = createTracing();
    const server = instrumentMcpServer(new McpServer({ name: 's', version: '1' }), {
      tracerProvider: tracing.provider,
      captureContent: true,
    });
    server.registerTool(
      'login',
      { inputSchema: { user: z.string(), password: z.string() } },
      async ({ user }) => ({
        content: [{ type: 'text', text: `welcome ${user}` }],
      }),
    );
    const client = new Client({ name: 'c', version: '1' });
    await connect(server, client);
    await client.callTool({
      name: 'login',
      arguments: { user: 'ana', password: 'hunter2-secret' },
    });
    await client.close();
    await tracing.settled();
    const span = tracing.only();
    const args = String(span.attributes['gen_ai.tool.call.arguments']);
    expect(args).toContain('ana');
    expect(args).not.toContain('hunter2-secret');
    expect(String(span.attributes['gen_ai.tool.call.result'])).toContain('welcome ana');
  });

  it('refuses objects that are not MCP servers or clients, and tools not made by defineTool', () => {
    expect(() => instrumentMcpServer({})).toThrow(/expected an McpServer or Server/);
    expect(() => instrumentMcpClient({})).toThrow(/expected a Client/);
    expect(() =>
      instrumentMcpServer(new McpServer({ name: 's', version: '1' }), { skipTools: 5 } as never),
    ).toThrow(/skipTools/);
    expect(() =>
      registerMcpTool(new McpServer({ name: 's', version: '1' }), { name: 'x' } as never),
    ).toThrow(/defineTool/);
  });
});
