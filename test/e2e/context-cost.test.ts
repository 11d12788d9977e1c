// What a tool's result costs the model, end to end: a real MCP server and client, the real OTLP
// exporter, a running collector. A 20 KB result shows about 20,000 bytes and a plausible token count on the
// server's span and on the client's, the same on both, in /api/calls and in /api/tools; an MCP result's content
// items and resource links are counted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import type { SpanOut, ToolStats } from '@toolscope/collector/schemas';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

let collector: Collector;
let provider: BasicTracerProvider;

/** About 20 KB of listing as JSON: 200 rows of ~100 bytes. */
const rows = Array.from({ length: 200 }, (_, i) => ({
  sku: `sku-${String(i).padStart(5, '0')}`,
  name: `Catalogue item number ${i} with a name`,
  price: Math.round(i * 13.7 * 100) / 100,
  stock: i % 17,
}));

beforeAll(async () => {
  collector = await startCollector({ db: ':memory:', port: 0 });
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'catalogue' }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  const server = instrumentMcpServer(new McpServer({ name: 'catalogue', version: '1' }), {
    tracerProvider: provider,
  });
  server.registerTool('dump_catalogue', { inputSchema: {} }, async () => ({
    content: [
      { type: 'text', text: JSON.stringify(rows) },
      { type: 'resource_link', uri: 'catalogue://all', name: 'all items' },
    ],
  }));
  registerMcpTool(
    server,
    defineTool({
      name: 'list_items',
      version: '1',
      effect: 'read',
      description: 'Every item',
      input: z.object({}).strict(),
      output: z.object({ items: z.array(z.object({}).passthrough()) }),
      execute: () => ({ items: rows }),
    }),
  );
  const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), {
    tracerProvider: provider,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  await client.callTool({ name: 'dump_catalogue', arguments: {} });
  await client.callTool({ name: 'list_items', arguments: {} });
  await client.close();
  await provider.forceFlush();
}, 60_000);

afterAll(async () => {
  await provider?.shutdown();
  await collector?.close();
});

type CallRow = {
  traceId: string;
  side: string;
  resultBytes: number | null;
  resultTokens: number | null;
};
async function callsOf(tool: string): Promise<CallRow[]> {
  const res = await fetch(`${collector.url}/api/calls?tool=${tool}&side=server`);
  const server = ((await res.json()) as { calls: CallRow[] }).calls;
  const res2 = await fetch(`${collector.url}/api/calls?tool=${tool}&side=client`);
  return [...server, ...((await res2.json()) as { calls: CallRow[] }).calls];
}

describe('the size of a result', () => {
  it('a 20 KB text result: about 20,000 bytes and plausible tokens on both sides, with its items', async () => {
    const text = JSON.stringify(rows);
    expect(Buffer.byteLength(text)).toBeGreaterThan(17_000);
    const calls = await callsOf('dump_catalogue');
    expect(calls.map((c) => c.side).sort()).toEqual(['client', 'server']);
    for (const c of calls) {
      // content [text item + resource link] as JSON: the text, escaped, plus a few dozen bytes of framing.
      expect(c.resultBytes).toBeGreaterThan(Buffer.byteLength(text));
      expect(c.resultBytes).toBeLessThan(Buffer.byteLength(text) * 1.15);
      // JSON listings run at 2.5–4 bytes per o200k token.
      expect(c.resultTokens).toBeGreaterThan((c.resultBytes ?? 0) / 5);
      expect(c.resultTokens).toBeLessThan((c.resultBytes ?? 0) / 2);
    }
    expect(calls[0]?.resultBytes).toBe(calls[1]?.resultBytes);
    const trace = (await (
      await fetch(`${collector.url}/api/traces/${calls[0]?.traceId}`)
    ).json()) as { spans: SpanOut[] };
    for (const span of trace.spans.filter((s) => s.name === 'tools/call dump_catalogue')) {
      expect(span.attributes['toolscope.output.content_items']).toBe(2);
      expect(span.attributes['toolscope.output.resource_links']).toBe(1);
    }
  });

  it('/api/tools: the 20 KB result at p50 and p95 (within the 5 % bucket), its exact max, per version', async () => {
    const [server] = (await callsOf('dump_catalogue')).filter((c) => c.side === 'server');
    const bytes = server?.resultBytes ?? 0;
    const tokens = server?.resultTokens ?? 0;
    const res = await fetch(`${collector.url}/api/tools`);
    const { tools } = (await res.json()) as { tools: ToolStats[] };
    const t = tools.find((x) => x.name === 'dump_catalogue');
    // Counted once: the client's span of the same call is paired with the server's.
    expect(t?.calls).toBe(1);
    expect(t?.resultBytesMax).toBe(bytes);
    expect(t?.resultBytesP50).toBeGreaterThan(bytes * 0.95);
    expect(t?.resultBytesP50).toBeLessThanOrEqual(bytes);
    expect(t?.resultBytesP95).toBe(t?.resultBytesP50);
    expect(t?.resultTokensP95).toBeGreaterThan(tokens * 0.95);
    expect(t?.resultTokensP95).toBeLessThanOrEqual(tokens);
    expect(t?.resultSizes.map((v) => [v.version, v.measured])).toEqual([['unversioned', 1]]);
    expect(tools.find((x) => x.name === 'list_items')?.resultSizes[0]?.version).toBe('1');
  });

  it('a defineTool result served over MCP is measured as sent: text and structuredContent', async () => {
    const data = JSON.stringify({ items: rows });
    const calls = await callsOf('list_items');
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      // The data twice: once as structuredContent, once as the TextContent for older clients.
      expect(c.resultBytes).toBeGreaterThan(2 * Buffer.byteLength(data));
      expect(c.resultBytes).toBeLessThan(2.3 * Buffer.byteLength(data));
    }
    expect(calls[0]?.resultBytes).toBe(calls[1]?.resultBytes);
  });
});
