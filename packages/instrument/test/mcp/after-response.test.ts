// A plain tool's span is finished after its response has gone back: the client has the result first, and the
// span that ends afterwards carries every attribute of the span contract, with the time the response was ready.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanKind } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fingerprint } from '../../src/fingerprint.js';
import { createHasher } from '../../src/hashing.js';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { mcpOutputHash } from '../../src/shared-rules.js';
import { createTracing } from '../tracing.js';

const KEY = 'after-response';

/** Holds the thread for `ms`, so that a span ended when its deferred work runs would end visibly later. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin: the gap has to be on this thread, before the next turn of the event loop
  }
}

async function connected(options: { tracedClient?: boolean } = {}) {
  const tracing = createTracing();
  const server = new McpServer({ name: 'deferred', version: '1' });
  instrumentMcpServer(server, { tracerProvider: tracing.provider, hashKey: KEY });
  server.registerTool(
    'get_order',
    { inputSchema: { customerId: z.string() }, annotations: { readOnlyHint: true } },
    async ({ customerId }) => ({
      content: [{ type: 'text', text: JSON.stringify({ customerId, status: 'paid' }) }],
    }),
  );
  registerMcpTool(
    server,
    defineTool({
      name: 'get_invoice',
      version: '3',
      effect: 'read',
      description: 'One invoice',
      input: z.object({ invoiceId: z.string() }),
      output: z.object({ invoiceId: z.string(), total: z.number() }),
      hashKey: KEY,
      execute: ({ invoiceId }) => ({ invoiceId, total: 12.5 }),
    }),
  );
  server.registerTool('explode', { inputSchema: { n: z.number() } }, async () => {
    throw new RangeError('no such order');
  });
  const bare = new Client({ name: 'agent', version: '1' });
  const client = options.tracedClient
    ? instrumentMcpClient(bare, { tracerProvider: tracing.provider, hashKey: KEY })
    : bare;
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  const ofKind = (kind: SpanKind) =>
    tracing.spans().filter((s) => s.name.startsWith('tools/call ') && s.kind === kind);
  const serverSpans = () => ofKind(SpanKind.SERVER);
  const clientSpans = () => ofKind(SpanKind.CLIENT);
  return { tracing, client, serverSpans, clientSpans };
}

describe('the span of a plain tool, after the response', () => {
  it('is still open when the client has the result, and complete once it ends', async () => {
    const { tracing, client, serverSpans } = await connected();
    const result = await client.callTool({ name: 'get_order', arguments: { customerId: 'cus_1' } });
    const answeredAt = Date.now();
    // The result is back; the span that measures it has not ended yet.
    expect(serverSpans()).toHaveLength(0);
    busy(50);

    await tracing.settled();
    const [span] = serverSpans();
    expect(span?.ended).toBe(true);
    const attributes = span?.attributes ?? {};
    expect(attributes).toMatchObject({
      [sc.ATTR_MCP_METHOD_NAME]: 'tools/call',
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'get_order',
      [sc.ATTR_TOOLSCOPE_SCHEMA_VERSION]: 'unversioned',
      [sc.ATTR_TOOLSCOPE_EFFECT]: 'read',
      [sc.ATTR_TOOLSCOPE_ATTEMPT]: 1,
      [sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT]: false,
      [sc.ATTR_TOOLSCOPE_INPUT_SHAPE]: 'customerId:string',
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
      [sc.ATTR_TOOLSCOPE_OUTPUT_RESOURCE_LINKS]: 0,
      [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: mcpOutputHash(result, createHasher(KEY)),
    });
    for (const key of [
      sc.ATTR_JSONRPC_REQUEST_ID,
      sc.ATTR_TOOLSCOPE_SCHEMA_HASH,
      sc.ATTR_TOOLSCOPE_INPUT_HASH,
      sc.ATTR_TOOLSCOPE_OUTPUT_BYTES,
      sc.ATTR_TOOLSCOPE_OUTPUT_TOKENS,
    ])
      expect(attributes[key], key).toBeDefined();
    expect(attributes[sc.ATTR_ERROR_TYPE]).toBeUndefined();
    // Its duration is the call's, not the call's plus the wait for the next turn of the event loop (50 ms here;
    // the margin covers Date.now's whole milliseconds).
    expect(hrTimeToMilliseconds(span?.endTime ?? [0, 0])).toBeLessThan(answeredAt + 25);
    await client.close();
  });

  it('hashes the input as it arrived, though it is hashed after the response and changed before that', async () => {
    const { tracing, client, serverSpans } = await connected();
    // InMemoryTransport hands the server the caller's own arguments object: the caller can change it once answered.
    const args: Record<string, unknown> = { customerId: 'cus_1' };
    await client.callTool({ name: 'get_order', arguments: args });
    const arrived = fingerprint({ ...args }, createHasher(KEY));
    args.customerId = 'cus_2';
    args.extra = true;
    await tracing.settled();
    const [span] = serverSpans();
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_INPUT_HASH]).toBe(arrived.hash);
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_INPUT_SHAPE]).toBe(arrived.shape);
    expect(arrived.hash).not.toBe(fingerprint(args, createHasher(KEY)).hash);
    await client.close();
  });

  it('keeps what a handler threw and the error code, set before the span ends', async () => {
    const { tracing, client, serverSpans } = await connected();
    const result = await client.callTool({ name: 'explode', arguments: { n: 1 } });
    expect(result.isError).toBe(true);
    expect(serverSpans()).toHaveLength(0);

    await tracing.settled();
    const [span] = serverSpans();
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_ERROR_TYPE]: sc.ERROR_TYPE_TOOL_ERROR,
      [sc.ATTR_TOOLSCOPE_ERROR_CODE]: 'FAILED',
      [sc.ATTR_TOOLSCOPE_RETRYABLE]: false,
    });
    expect(span?.status.message).toBe('FAILED');
    expect(span?.events.map((e) => e.attributes?.[sc.ATTR_EXCEPTION_TYPE])).toEqual(['RangeError']);
    await client.close();
  });

  it('ends every span of a burst of calls, each with its own result hash', async () => {
    const { tracing, client, serverSpans } = await connected();
    const ids = ['cus_1', 'cus_2', 'cus_3', 'cus_1'];
    const results = await Promise.all(
      ids.map((customerId) => client.callTool({ name: 'get_order', arguments: { customerId } })),
    );
    await tracing.settled();
    const hasher = createHasher(KEY);
    const byRequest = new Map(
      serverSpans().map((s) => [
        s.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_HASH],
        s.attributes[sc.ATTR_TOOLSCOPE_INPUT_HASH],
      ]),
    );
    expect(serverSpans()).toHaveLength(4);
    for (const result of results) expect(byRequest.has(mcpOutputHash(result, hasher))).toBe(true);
    // Same input, same answer: the first and last calls share both hashes.
    expect(byRequest.size).toBe(3);
    await client.close();
  });

  it('on the client side too: the caller has the result before the client span ends, complete', async () => {
    const { tracing, client, clientSpans } = await connected({ tracedClient: true });
    const result = await client.callTool({ name: 'get_order', arguments: { customerId: 'cus_1' } });
    const answeredAt = Date.now();
    expect(clientSpans()).toHaveLength(0);
    busy(50);

    await tracing.settled();
    const [span] = clientSpans();
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_MCP_METHOD_NAME]: 'tools/call',
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'get_order',
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
      [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: mcpOutputHash(result, createHasher(KEY)),
    });
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES]).toBeGreaterThan(0);
    expect(hrTimeToMilliseconds(span?.endTime ?? [0, 0])).toBeLessThan(answeredAt + 25);
    await client.close();
  });

  it('for a defineTool tool through registerMcpTool as well', async () => {
    const { tracing, client, serverSpans } = await connected();
    const result = await client.callTool({ name: 'get_invoice', arguments: { invoiceId: 'in_1' } });
    const answeredAt = Date.now();
    expect(result.structuredContent).toEqual({ invoiceId: 'in_1', total: 12.5 });
    expect(serverSpans()).toHaveLength(0);
    busy(50);

    await tracing.settled();
    const [span] = serverSpans();
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'get_invoice',
      [sc.ATTR_TOOLSCOPE_SCHEMA_VERSION]: '3',
      [sc.ATTR_TOOLSCOPE_INPUT_SHAPE]: 'invoiceId:string',
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
      [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: mcpOutputHash(result, createHasher(KEY)),
    });
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES]).toBeGreaterThan(0);
    expect(hrTimeToMilliseconds(span?.endTime ?? [0, 0])).toBeLessThan(answeredAt + 25);
    await client.close();
  });
});
