// A call's span ends before its response goes back (decision 0047): when the caller has the result, the span has
// ended with every attribute of the span contract, so a flush of the caller's own provider right then exports it.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanKind } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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

const KEY = 'span-end';

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

describe('the span of a call, ended before its response', () => {
  it('has ended, complete, when the client has the result', async () => {
    const { client, serverSpans } = await connected();
    const result = await client.callTool({ name: 'get_order', arguments: { customerId: 'cus_1' } });
    const answeredAt = Date.now();
    // No turn of the event loop has passed: the span ended on the response path.
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
    // It ended before the client had the result (the margin covers Date.now's whole milliseconds).
    expect(hrTimeToMilliseconds(span?.endTime ?? [0, 0])).toBeLessThanOrEqual(answeredAt + 1);
    await client.close();
  });

  it('keeps what a handler threw and the error code, set before the span ends', async () => {
    const { client, serverSpans } = await connected();
    const result = await client.callTool({ name: 'explode', arguments: { n: 1 } });
    expect(result.isError).toBe(true);
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
    const { client, serverSpans } = await connected();
    const ids = ['cus_1', 'cus_2', 'cus_3', 'cus_1'];
    const results = await Promise.all(
      ids.map((customerId) => client.callTool({ name: 'get_order', arguments: { customerId } })),
    );
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

  it('on the client side too: the client span has ended, complete, when the caller has the result', async () => {
    const { client, clientSpans } = await connected({ tracedClient: true });
    const result = await client.callTool({ name: 'get_order', arguments: { customerId: 'cus_1' } });
    const answeredAt = Date.now();
    const [span] = clientSpans();
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_MCP_METHOD_NAME]: 'tools/call',
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'get_order',
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
      [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: mcpOutputHash(result, createHasher(KEY)),
    });
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES]).toBeGreaterThan(0);
    expect(hrTimeToMilliseconds(span?.endTime ?? [0, 0])).toBeLessThanOrEqual(answeredAt + 1);
    await client.close();
  });

  it('for a defineTool tool through registerMcpTool as well', async () => {
    const { client, serverSpans } = await connected();
    const result = await client.callTool({ name: 'get_invoice', arguments: { invoiceId: 'in_1' } });
    const answeredAt = Date.now();
    expect(result.structuredContent).toEqual({ invoiceId: 'in_1', total: 12.5 });
    const [span] = serverSpans();
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'get_invoice',
      [sc.ATTR_TOOLSCOPE_SCHEMA_VERSION]: '3',
      [sc.ATTR_TOOLSCOPE_INPUT_SHAPE]: 'invoiceId:string',
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
      [sc.ATTR_TOOLSCOPE_OUTPUT_HASH]: mcpOutputHash(result, createHasher(KEY)),
    });
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES]).toBeGreaterThan(0);
    expect(hrTimeToMilliseconds(span?.endTime ?? [0, 0])).toBeLessThanOrEqual(answeredAt + 1);
    await client.close();
  });
});
