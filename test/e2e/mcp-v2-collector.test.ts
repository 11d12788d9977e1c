// Both SDK majors over Streamable HTTP into a real collector, as their users run them: the docs' orders servers
// (SDK v2's 2025 sessions and 2026-07-28 requests, and SDK 1.x's sessions) as child processes exporting OTLP
// protobuf with setupToolscope, and five agents here exporting their CLIENT spans: each major against its own
// server, SDK v2 pinned to 2026-07-28, and each major's client against the other's server. The HTTP requests carry
// no trace headers, so only `_meta` can make a server span the child of its client span. Each agent sends the
// same bad input twice. What a v2 user saw broken: every call counted twice (the two spans in different traces),
// no `unrepaired_invalid_input`, no client name, `(root)` as the path of a broken output.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import type { Flag } from '@toolscope/collector/schemas';
import { instrumentMcpClient } from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyClient,
  agentTurn,
  CALLS,
  checkTurn,
  clientSpansOf,
  type Expected,
  HASH_KEY,
} from '../../packages/instrument/test/mcp/mcp-v2-matrix.js';
import type { SpanView } from '../../packages/instrument/test/mcp/scenario.js';
import { start, stopAll } from './processes.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-mcp-v2-'));
let collector: Collector;
let provider: BasicTracerProvider;
const memory = new InMemorySpanExporter();
// The matrix's turn, and the bad input of its second call sent again: the agent did not repair it.
const TURN = [...CALLS, CALLS[1] as (typeof CALLS)[number]];

type Case = {
  server: 'v1' | 'v2';
  connect: (url: URL) => Promise<AnyClient>;
  want: Omit<Expected, 'transport' | 'conversationId'>;
};
const V1_SERVER = { name: 'orders', version: '1.3.0' };
const V2_SERVER = { name: 'orders', version: '1.4.0' };
const v1Client = (name: string) => async (url: URL) => {
  const client = instrumentMcpClient(new ClientV1({ name, version: '1.0.1' }), {
    conversationId: `conv-${name}`,
  });
  await client.connect(new HttpV1(url));
  return client;
};
const v2Client = (name: string, pin?: string) => async (url: URL) => {
  const options = pin ? { versionNegotiation: { mode: { pin } } } : {};
  const client = instrumentMcpClient(new Client({ name, version: '2.0.2' }, options), {
    conversationId: `conv-${name}`,
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
};
const v2 = (name: string) => ({ name, version: '2.0.2' });
const v1 = (name: string) => ({ name, version: '1.0.1' });
const cases: [string, Case][] = [
  [
    'SDK v2, 2025 session (NodeStreamableHTTPServerTransport)',
    {
      server: 'v2',
      connect: v2Client('agent-v2-legacy'),
      want: { client: v2('agent-v2-legacy'), server: V2_SERVER, protocol: 'legacy' },
    },
  ],
  [
    'SDK v2 pinned to 2026-07-28 (createMcpHandler)',
    {
      server: 'v2',
      connect: v2Client('agent-v2-modern', '2026-07-28'),
      want: { client: v2('agent-v2-modern'), server: V2_SERVER, protocol: '2026-07-28' },
    },
  ],
  [
    'SDK 1.x client and server',
    {
      server: 'v1',
      connect: v1Client('agent-v1'),
      want: { client: v1('agent-v1'), server: V1_SERVER, protocol: 'legacy' },
    },
  ],
  [
    'SDK 1.x client, SDK v2 server',
    {
      server: 'v2',
      connect: v1Client('agent-v1-to-v2'),
      want: { client: v1('agent-v1-to-v2'), server: V2_SERVER, protocol: 'legacy' },
    },
  ],
  [
    'SDK v2 client, SDK 1.x server',
    {
      server: 'v1',
      connect: v2Client('agent-v2-to-v1'),
      want: { client: v2('agent-v2-to-v1'), server: V1_SERVER, protocol: 'legacy' },
    },
  ],
];
const traceIds = new Map<string, string>();

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${collector.url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

type CallRow = { side: string; paired: boolean; clientName: string | null; traceId: string };
const rows = async (query: string) =>
  (await api<{ calls: CallRow[] }>(`/api/calls?limit=1000&${query}`)).calls;

/**
 * Both sides of `calls` calls stored: the servers' spans come from other processes, a batch at a time. Fails when
 * nothing new is stored for 30 s.
 */
async function stored(calls: number): Promise<void> {
  let seen = -1;
  let since = Date.now();
  for (;;) {
    const [client, server] = await Promise.all(
      ['client', 'server'].map(async (side) => (await rows(`side=${side}`)).length),
    );
    if (client === calls && server === calls) return;
    const now = (client ?? 0) + (server ?? 0);
    if (now !== seen) [seen, since] = [now, Date.now()];
    if (Date.now() - since > 30_000)
      throw new Error(`stored ${client} client, ${server} server rows`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'v2.db'), port: 0, hashKey: HASH_KEY });
  const env = {
    PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    TOOLSCOPE_HASH_KEY: HASH_KEY,
  };
  // Both server processes start at once: their start-up is most of this file's time.
  const urls = await Promise.all(
    ['mcp-v2-http-server.ts', 'mcp-v2-sdk1-server.ts'].map(async (file) => {
      const proc = start(`packages/instrument/test/mcp/${file}`, [], env);
      return new URL((await proc.waitFor(/on (http:\/\/\S+)/, 200_000))[1] as string);
    }),
  );
  const url = { v2: urls[0] as URL, v1: urls[1] as URL };
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'orders-agent' }),
    spanProcessors: [
      new SimpleSpanProcessor(memory),
      // A batch, not a span per request: the OTLP exporter refuses a 31st export in flight, which a loaded
      // collector reached with one export per span (30 of 35 client spans stored).
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }), {
        scheduledDelayMillis: 20,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  process.env.TOOLSCOPE_HASH_KEY = HASH_KEY;
  for (const [name, c] of cases) {
    const client = await c.connect(url[c.server]);
    traceIds.set(name, await agentTurn(client, TURN));
    await client.close();
  }
  // The adapters end a call's span in the turn after its response; then the agents' last spans go out.
  await new Promise((resolve) => setImmediate(resolve));
  await provider.forceFlush();
  await stored(cases.length * TURN.length);
  // On a machine others load, two server processes may take a minute to start; each wait above follows progress.
}, 300_000);

afterAll(async () => {
  await stopAll();
  await provider?.shutdown();
  trace.disable();
  context.disable();
  delete process.env.TOOLSCOPE_HASH_KEY;
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A stored span as the matrix's checks read it (OTLP's span kinds are the API's plus one). */
type StoredSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  status: { code: number };
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
};
const viewOfStored = (s: StoredSpan): SpanView => ({
  name: s.name,
  kind: s.kind - 1,
  traceId: s.traceId,
  spanId: s.spanId,
  parentSpanId: s.parentSpanId ?? undefined,
  attributes: s.attributes,
  statusCode: s.status.code,
  links: s.links.map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
});

describe('both SDK majors over Streamable HTTP, into the collector', () => {
  it.each(cases)('%s: one trace per call, codes, client and server named', async (name, c) => {
    const traceId = traceIds.get(name) as string;
    const { spans } = await api<{ spans: StoredSpan[] }>(`/api/traces/${traceId}`);
    const servers = spans.map(viewOfStored).filter((s) => s.kind === 1);
    const want = {
      ...c.want,
      transport: 'tcp' as const,
      conversationId: `conv-${c.want.client.name}`,
    };
    checkTurn(clientSpansOf(memory.getFinishedSpans(), traceId), traceId, servers, want, TURN);
  });

  it('counts each call once: every client row is paired with its server row', async () => {
    const { tools } = await api<{ tools: { name: string; calls: number; codes: object }[] }>(
      '/api/tools',
    );
    const turns = cases.length;
    expect(tools.find((t) => t.name === 'get_order')).toMatchObject({
      calls: 4 * turns,
      codes: { INVALID_INPUT: 2 * turns, REJECTED: turns },
    });
    expect(tools.find((t) => t.name === 'mean')).toMatchObject({
      calls: 3 * turns,
      codes: { INVALID_INPUT: turns, INVALID_OUTPUT: turns },
    });
    expect((await rows('side=client')).every((c) => c.paired)).toBe(true);
    const servers = await rows('side=server');
    for (const [name, c] of cases) {
      const mine = servers.filter((s) => s.traceId === traceIds.get(name));
      expect(mine.length, name).toBe(TURN.length);
      expect([...new Set(mine.map((s) => s.clientName))], name).toEqual([c.want.client.name]);
    }
  });

  it('flags each agent that sent the same bad input twice, once, with its trace', async () => {
    const { flags } = await api<{ flags: Flag[] }>('/api/flags?kind=unrepaired_invalid_input');
    const mine = flags.filter((f) => f.tool === 'get_order');
    expect(mine.map((f) => f.traceId).sort()).toEqual([...traceIds.values()].sort());
    for (const f of mine) {
      expect(f.count).toBe(2);
      expect(f.evidence.traceIds).toEqual([f.traceId]);
      expect(f.evidence.spanIds).toHaveLength(2);
    }
  });

  it('keeps the contracts the servers reported, and the failing path of the broken output', async () => {
    for (const tool of ['get_order', 'mean']) {
      const { contracts } = await api<{ contracts: unknown[] }>(`/api/tools/${tool}/contracts`);
      expect(contracts.length, tool).toBeGreaterThan(0);
    }
    const broken = await api<{ calls: { issues: { path: string }[] }[] }>(
      '/api/calls?tool=mean&code=INVALID_OUTPUT&side=server',
    );
    const paths = broken.calls.map((c) => c.issues.map((i) => i.path));
    expect(paths).toEqual(cases.map(() => ['mean']));
  });
});
