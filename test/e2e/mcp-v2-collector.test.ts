// SDK v2 end to end into a real collector, as a v2 user runs it: the docs' orders server (Streamable HTTP, a child
// process exporting OTLP protobuf with setupToolscope) and two agents here exporting their CLIENT spans, one
// negotiating 2026-07-28 (the docs' agent, `auto`) and one in a 2025 session. Each agent sends the same bad input
// twice. What a v2 user saw broken: every call counted twice (client and server spans in different traces), no
// `unrepaired_invalid_input`, no contracts, no client name.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, type Flag, startCollector } from '@toolscope/collector';
import { instrumentMcpClient } from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentClient } from '../../packages/instrument/test/mcp/mcp-v2-agent.js';
import { start, stopAll } from './processes.js';

const KEY = 'mcp-v2-e2e-key';
const dir = mkdtempSync(join(tmpdir(), 'toolscope-mcp-v2-'));
let collector: Collector;
let provider: BasicTracerProvider;
const traceIds: Record<string, string> = {};

type ToolRow = { name: string; calls: number; codes: Record<string, number> };
type CallRow = { side: string; paired: boolean; clientName: string | null; traceId: string };

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${collector.url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** The agent's turn in a root span of its own; the bad input goes out twice, unrepaired. */
async function turn(client: Client, name: string): Promise<void> {
  traceIds[name] = await trace.getTracer('agent').startActiveSpan('agent.turn', async (root) => {
    await client.listTools();
    await client.callTool({ name: 'get_order', arguments: { orderId: 'o-1' } });
    for (let i = 0; i < 2; i++)
      await client.callTool({ name: 'get_order', arguments: { orderId: 7 } });
    await client.callTool({ name: 'mean', arguments: { values: [2, 4] } });
    await client.callTool({ name: 'mean', arguments: { values: [] } });
    root.end();
    return root.spanContext().traceId;
  });
}

/** Both sides of `calls` calls stored: the server's spans come from another process, a batch at a time. */
async function stored(calls: number): Promise<void> {
  let seen = -1;
  let since = Date.now();
  for (;;) {
    const [client, server] = await Promise.all(
      ['client', 'server'].map(
        async (side) => (await api<{ calls: CallRow[] }>(`/api/calls?side=${side}`)).calls.length,
      ),
    );
    if (client === calls && server === calls) return;
    const now = (client ?? 0) + (server ?? 0);
    if (now !== seen) [seen, since] = [now, Date.now()];
    if (Date.now() - since > 10_000)
      throw new Error(`stored ${client} client, ${server} server rows`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'v2.db'), port: 0, hashKey: KEY });
  const server = start('packages/instrument/test/mcp/mcp-v2-http-server.ts', [], {
    PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    TOOLSCOPE_HASH_KEY: KEY,
  });
  const url = new URL((await server.waitFor(/on (http:\/\/\S+)/))[1] as string);
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'orders-agent' }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  process.env.TOOLSCOPE_HASH_KEY = KEY;

  const modern = agentClient('conv-v2-modern');
  await modern.connect(new StreamableHTTPClientTransport(url));
  expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  const legacy = instrumentMcpClient(new Client({ name: 'legacy-agent', version: '0.9.0' }), {
    conversationId: 'conv-v2-legacy',
  });
  await legacy.connect(new StreamableHTTPClientTransport(url));
  await Promise.all([turn(modern, 'modern'), turn(legacy, 'legacy')]);
  await Promise.all([modern.close(), legacy.close()]);
  // The adapters end a call's span in the turn after its response; then the client's last spans go out.
  await new Promise((resolve) => setImmediate(resolve));
  await provider.forceFlush();
  await stored(10);
}, 120_000);

afterAll(async () => {
  await stopAll();
  await provider?.shutdown();
  trace.disable();
  context.disable();
  delete process.env.TOOLSCOPE_HASH_KEY;
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SDK v2 into the collector', () => {
  it('counts each call once: every client row is paired with its server row in the same trace', async () => {
    const { tools } = await api<{ tools: ToolRow[] }>('/api/tools');
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('get_order')).toMatchObject({ calls: 6, codes: { INVALID_INPUT: 4 } });
    expect(byName.get('mean')).toMatchObject({ calls: 4, codes: { INVALID_OUTPUT: 2 } });
    const { calls } = await api<{ calls: CallRow[] }>('/api/calls?side=client');
    expect(calls.every((c) => c.paired)).toBe(true);
    const servers = (await api<{ calls: CallRow[] }>('/api/calls?side=server')).calls;
    for (const [name, traceId] of Object.entries(traceIds)) {
      expect(servers.filter((c) => c.traceId === traceId).length, name).toBe(5);
    }
  });

  it('names the client on the server rows, in both eras', async () => {
    const servers = (await api<{ calls: CallRow[] }>('/api/calls?side=server')).calls;
    const names = (traceId: string | undefined) =>
      [...new Set(servers.filter((c) => c.traceId === traceId).map((c) => c.clientName))].sort();
    expect(names(traceIds.modern)).toEqual(['orders-agent']);
    expect(names(traceIds.legacy)).toEqual(['legacy-agent']);
  });

  it('flags the agent that sent the same bad input twice, once per conversation, with its trace', async () => {
    const { flags } = await api<{ flags: Flag[] }>('/api/flags?kind=unrepaired_invalid_input');
    const mine = flags.filter((f) => f.tool === 'get_order');
    // One per agent turn (its trace), each counting the bad call and its unrepaired repeat, not four.
    expect(mine.map((f) => f.traceId).sort()).toEqual([traceIds.modern, traceIds.legacy].sort());
    for (const f of mine) {
      expect(f.count).toBe(2);
      expect(f.evidence.traceIds).toEqual([f.traceId]);
      expect(f.evidence.spanIds).toHaveLength(2);
    }
  });

  it('keeps the contracts the v2 server reported, with the failing path of the broken output', async () => {
    for (const tool of ['get_order', 'mean']) {
      const { contracts } = await api<{ contracts: { version: string }[] }>(
        `/api/tools/${tool}/contracts`,
      );
      expect(contracts.length, tool).toBe(1);
    }
    const broken = await api<{ calls: { issues: { path: string }[] }[] }>(
      '/api/calls?tool=mean&code=INVALID_OUTPUT&side=server',
    );
    expect(broken.calls.map((c) => c.issues.map((i) => i.path))).toEqual([['mean'], ['mean']]);
  });
});
