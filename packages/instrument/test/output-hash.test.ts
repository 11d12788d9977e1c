// `toolscope.output.hash`: the keyed hash of the result as the model reads it, on every adapter's span, equal for
// equal results and equal between the client's and the server's view of one MCP call.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHasher } from '../src/hashing.js';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '../src/index.js';
import { mcpOutputHash, outputHash } from '../src/shared-rules.js';
import { createTracing } from './tracing.js';

const KEY = 'output-hash-test';
const HASH = 'toolscope.output.hash';

describe('toolscope.output.hash', () => {
  it('is the keyed hash of the envelope a defineTool call returns: same result, same hash', async () => {
    const t = createTracing();
    const tool = defineTool({
      name: 'stock',
      version: '1',
      effect: 'read',
      description: 'Stock of one item',
      input: z.object({ sku: z.string() }),
      output: z.object({ sku: z.string(), left: z.number() }),
      hashKey: KEY,
      tracerProvider: t.provider,
      execute: ({ sku }) => ({ sku, left: sku === 'a' ? 3 : 4 }),
    });
    const first = await tool.call({ sku: 'a' });
    await tool.call({ sku: 'a' });
    await tool.call({ sku: 'b' });
    const [a1, a2, b] = t.spans().map((s) => s.attributes[HASH]);
    expect(a1).toMatch(/^[0-9a-f]{16}$/);
    expect(a2).toBe(a1);
    expect(b).not.toBe(a1);
    expect(a1).toBe(outputHash(first, createHasher(KEY)));
  });

  it('is the same on the client span, the plain tool span and the registerMcpTool span of one result', async () => {
    const t = createTracing();
    const server = instrumentMcpServer(new McpServer({ name: 's', version: '1' }), {
      tracerProvider: t.provider,
      hashKey: KEY,
    });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    registerMcpTool(
      server,
      defineTool({
        name: 'double',
        version: '1',
        effect: 'read',
        description: 'Twice n',
        input: z.object({ n: z.number() }),
        output: z.object({ n: z.number() }),
        hashKey: KEY,
        execute: ({ n }) => ({ n: n * 2 }),
      }),
    );
    const client = instrumentMcpClient(new Client({ name: 'c', version: '1' }), {
      tracerProvider: t.provider,
      hashKey: KEY,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const doubled = await client.callTool({ name: 'double', arguments: { n: 2 } });
    await client.callTool({ name: 'echo', arguments: { text: 'other' } });
    await client.close();
    await t.settled();
    // Server spans end after their response has gone back, so after the client's: compared side by side.
    const side = (name: string, kind: SpanKind) =>
      t
        .spans()
        .filter((s) => s.name === `tools/call ${name}` && s.kind === kind)
        .map((s) => s.attributes[HASH]);
    const hashes = (name: string) =>
      side(name, SpanKind.SERVER).flatMap((server, i) => [server, side(name, SpanKind.CLIENT)[i]]);
    const hasher = createHasher(KEY);
    // The SDK adds nothing the model reads: both sides hash the same content and structuredContent.
    const [echoServer, echoClient, otherServer, otherClient] = hashes('echo');
    expect(echoServer).toBe(mcpOutputHash(echoed, hasher));
    expect(echoClient).toBe(echoServer);
    expect(otherServer).toBe(otherClient);
    expect(otherServer).not.toBe(echoServer);
    expect(hashes('double')).toEqual([
      mcpOutputHash(doubled, hasher),
      mcpOutputHash(doubled, hasher),
    ]);
  });
});
