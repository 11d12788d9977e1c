// The contract catalog and the cause of a failure, end to end: two real MCP servers (stable and canary)
// serve `get_order` v2 with different output enums, a real MCP client calls them, and the real OTLP exporter
// sends every span to a running collector on a SQLite file. Read back through the API: both contracts with
// their schemas and weights, the diff naming the enum value, the silent change's changed path, the deprecated
// tool's callers, a thrown error's type and redacted message, INVALID_OUTPUT on the caller's span for a server
// that breaks its own outputSchema; and `report --db` listing the same flags as the API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, runCli, startCollector } from '@toolscope/collector';
import type { Flag } from '@toolscope/collector/schemas';
import { instrumentMcpClient } from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lyingServer, ordersServer } from './contract-servers.js';

const BUDGET = 300;
const dir = mkdtempSync(join(tmpdir(), 'toolscope-contracts-'));
const dbPath = join(dir, 'contracts.db');
let collector: Collector;
const providers: BasicTracerProvider[] = [];

function providerFor(service: string): BasicTracerProvider {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  providers.push(provider);
  return provider;
}
// The adapters end an MCP call's spans in the turn of the event loop after its response: one turn, then flush.
const flushAll = async () => {
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(providers.map((p) => p.forceFlush()));
};

async function api<T>(path: string, status = 200): Promise<T> {
  const res = await fetch(`${collector.url}${path}`);
  expect(res.status, path).toBe(status);
  return (await res.json()) as T;
}

async function connect(server: { connect: (t: InMemoryTransport) => Promise<void> }) {
  const client = instrumentMcpClient(new Client({ name: 'checkout-agent', version: '1' }), {
    tracerProvider: providerFor('agent'),
    conversationId: 'conv-contracts-1',
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

type Contract = {
  version: string;
  schemaHash: string;
  services: string[];
  outputSchema: { properties: { status: { enum: string[] } } };
  inputSchema: unknown;
  schemaBytes: number;
  schemaTokens: number;
  reported: boolean;
  deprecated: { replacedBy: string | null; sunset: string | null } | null;
};

beforeAll(async () => {
  collector = await startCollector({
    db: dbPath,
    port: 0,
    hashKey: 'contracts-test-key',
    drift: { schemaTokenBudget: BUDGET },
  });
  for (const [service, statuses] of [
    ['orders-stable', ['pending', 'shipped']],
    ['orders-canary', ['pending', 'shipped', 'cancelled']],
  ] as const) {
    const client = await connect(ordersServer(service, [...statuses], providerFor(service)));
    await client.listTools();
    await client.callTool({ name: 'get_order', arguments: { orderId: 'o-1' } });
    await client.callTool({ name: 'catalogue.list', arguments: { page: 1 } });
    await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    await client.close();
  }
  await flushAll();
}, 60_000);

afterAll(async () => {
  for (const p of providers) await p.shutdown();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the contract catalog', () => {
  it('keeps both contracts of get_order with their schemas, services and weights', async () => {
    const { contracts } = await api<{ contracts: Contract[] }>('/api/tools/get_order/contracts');
    expect(contracts).toHaveLength(2);
    const byService = new Map(contracts.map((c) => [c.services.join(','), c]));
    expect(byService.get('orders-stable')?.outputSchema.properties.status.enum).toEqual([
      'pending',
      'shipped',
    ]);
    expect(byService.get('orders-canary')?.outputSchema.properties.status.enum).toEqual([
      'pending',
      'shipped',
      'cancelled',
    ]);
    for (const c of contracts) {
      expect(c).toMatchObject({ version: '2', reported: true, deprecated: null });
      expect(c.inputSchema).toMatchObject({ properties: { orderId: { type: 'string' } } });
      // The canary's entry is a few bytes longer (one more enum value): weights follow the entry.
      expect(c.schemaBytes).toBeGreaterThan(100);
      expect(c.schemaTokens).toBeGreaterThan(20);
      expect(c.schemaTokens).toBeLessThan(c.schemaBytes);
    }
    const [stable, canary] = ['orders-stable', 'orders-canary'].map((s) => byService.get(s));
    expect(canary?.schemaBytes).toBeGreaterThan(stable?.schemaBytes ?? 0);
    const tools = await api<{
      tools: { name: string; schemaTokens: number | null }[];
      servers: { service: string; tools: number; schemaTokens: number }[];
    }>('/api/tools');
    expect(tools.tools.find((t) => t.name === 'get_order')?.schemaTokens).toBeGreaterThan(20);
    expect(tools.servers.map((s) => [s.service, s.tools]).sort()).toEqual([
      ['orders-canary', 4],
      ['orders-stable', 4],
    ]);
  });

  it('diffs the two contracts in JSON Schema terms: the enum path and the added value', async () => {
    const { contracts } = await api<{ contracts: Contract[] }>('/api/tools/get_order/contracts');
    const hash = (service: string) =>
      contracts.find((c) => c.services.includes(service))?.schemaHash;
    const { changes } = await api<{ changes: unknown[] }>(
      `/api/tools/get_order/contracts/diff?from=${hash('orders-stable')}&to=${hash('orders-canary')}`,
    );
    expect(changes).toEqual([
      { path: 'output.status.enum', change: 'added', before: null, after: 'cancelled' },
    ]);
    await api(`/api/tools/get_order/contracts/diff?from=${hash('orders-stable')}&to=0123`, 404);
    await api('/api/tools/get_order/contracts/diff?from=xyz&to=0123', 400);
  });

  it('names the changed path in the silent_schema_change evidence', async () => {
    const { flags } = await api<{ flags: Flag[] }>('/api/flags?kind=silent_schema_change&since=1h');
    const flag = flags.find((f) => f.tool === 'get_order');
    expect(flag?.evidence.changes).toEqual(['output.status.enum: added "cancelled"']);
    expect(flag?.summary).toContain('output.status.enum');
  });

  it('lists who still calls a deprecated tool, its replacement and the days left', async () => {
    const { flags } = await api<{ flags: Flag[] }>(
      '/api/flags?kind=deprecated_tool_in_use&since=1h',
    );
    expect(flags).toHaveLength(1);
    const flag = flags[0];
    expect(flag).toMatchObject({ tool: 'catalogue.list', count: 2, severity: 'warning' });
    expect(flag?.evidence).toMatchObject({
      replacedBy: 'catalogue.search',
      sunset: '2099-03-01',
      callers: ['agent'],
      clients: ['checkout-agent'],
      conversations: ['conv-contracts-1'],
    });
    expect(flag?.evidence.services?.sort()).toEqual(['orders-canary', 'orders-stable']);
    expect(flag?.evidence.daysLeft).toBeGreaterThan(365 * 70);
  });

  it('flags the schema over the token budget, and only that one', async () => {
    const { flags } = await api<{ flags: Flag[] }>('/api/flags?kind=heavy_schema&since=1h');
    expect(flags.map((f) => f.tool)).toEqual(['bulky_report']);
    expect(flags[0]?.evidence.budget).toBe(BUDGET);
    expect(flags[0]?.evidence.schemaTokens).toBeGreaterThan(BUDGET);
    expect(flags[0]?.evidence.schemaTokens).toBeLessThan(1000);
  });
});

describe('the cause of a failure', () => {
  it('keeps the thrown type and the redacted message of a plain MCP tool', async () => {
    const { calls } = await api<{
      calls: { code: string; exceptionType: string | null; exceptionMessage: string | null }[];
    }>('/api/calls?tool=get_weather&side=server');
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect(c).toMatchObject({ code: 'FAILED', exceptionType: 'Error' });
      expect(c.exceptionMessage).toBe('weather backend exploded for [REDACTED:email]');
    }
    const { tools } = await api<{ tools: { name: string; exceptions: unknown[] }[] }>(
      '/api/tools?tool=get_weather',
    );
    expect(tools[0]?.exceptions).toEqual([{ type: 'Error', count: 2 }]);
  });
});

describe("the agent's side of the contract", () => {
  it('records INVALID_OUTPUT on the client span when structuredContent breaks the outputSchema', async () => {
    const client = await connect(lyingServer());
    await client.listTools();
    // The SDK throws too; the span says why, with the path and no value.
    await expect(client.callTool({ name: 'count_items', arguments: {} })).rejects.toThrow();
    // A raw request skips the SDK's own check and returns the result: the span still says it broke.
    const raw = await client.request(
      { method: 'tools/call', params: { name: 'count_items', arguments: {} } },
      CallToolResultSchema,
    );
    expect(raw.structuredContent).toEqual({ count: 'many' });
    await client.close();
    await flushAll();
    const { calls } = await api<{
      calls: { code: string; side: string; issues: { path: string; message: string }[] }[];
    }>('/api/calls?tool=count_items&side=client');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatchObject({ code: 'INVALID_OUTPUT', side: 'client' });
      expect(call.issues.map((i) => i.path)).toEqual(['count']);
      expect(JSON.stringify(call.issues)).not.toContain('many');
    }
  });
});

describe('report --db', () => {
  it('lists the same flags as the API, with the thresholds the collector stored', async () => {
    const { flags } = await api<{ flags: Flag[] }>('/api/flags?since=1h');
    await collector.close();
    let out = '';
    const code = await runCli(['report', '--db', dbPath, '--since', '1h', '--format', 'json'], {
      out: (t) => {
        out += t;
      },
      err: () => {},
      env: {},
      onSignal: () => {},
    });
    expect(code).toBe(0);
    const report = JSON.parse(out) as {
      flags: Flag[];
      tools: { name: string; exceptions: unknown[] }[];
    };
    const kinds = (list: Flag[]) => list.map((f) => `${f.kind}|${f.tool}`).sort();
    expect(kinds(report.flags)).toEqual(kinds(flags));
    expect(kinds(report.flags)).toContain('heavy_schema|bulky_report');
    expect(report.tools.find((t) => t.name === 'get_weather')?.exceptions).toEqual([
      { type: 'Error', count: 2 },
    ]);
    // A CI job can fail on a deprecated tool still in use; the markdown lists the causes and weights.
    let md = '';
    const failing = await runCli(
      ['report', '--db', dbPath, '--since', '1h', '--fail-on', 'deprecated_tool_in_use'],
      { out: (t) => (md += t), err: () => {}, env: {}, onSignal: () => {} },
    );
    expect(failing).toBe(1);
    expect(md).toContain('- get_weather: Error ×2');
    expect(md).toMatch(/\| bulky_report \| \d+ \| \d+ \|/);
    expect(md).toContain('❌ **deprecated_tool_in_use** · catalogue.list');
  });
});
