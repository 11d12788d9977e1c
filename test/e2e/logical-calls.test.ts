// One logical call into a real collector (issue 44, decision 0046): a tool that asks for input once and a task
// polled several times read as one call each in /api/calls and /api/tools and raise no loop flag, through the MCP
// adapters (an instrumented SDK v2 server process exporting with setupToolscope, an instrumented agent here, whose
// task traffic goes through ext-tasks' raw dispatch) and through the proxy in front of an uninstrumented copy of
// the same server over HTTP (the proxy's pairing of legs and polls over stdio, on other connections and in 2025
// sessions is specified in packages/proxy/src/logical-calls.test.ts). A loop the agent makes on purpose in the same
// trace is flagged, so the detectors have run when the absence of other flags is read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import type { Flag } from '@toolscope/collector/schemas';
import { instrumentMcpClient } from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentClient,
  POLL_MS,
  POLLS_TO_COMPLETE,
  taskSession,
} from '../../packages/instrument/test/mcp/logical-tools.js';
import { start, stopAll } from './processes.js';
import { type Call, reader, type Span } from './proxy-collector.js';
import { httpProxy } from './proxy-process.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-logical-'));
const HASH_KEY = 'logical-calls';
const SERVER = 'test/e2e/logical-server.ts';
let collector: Collector;
let r: ReturnType<typeof reader>;
let provider: BasicTracerProvider;
let traced: string;
let proxied: string;
let proxyProcess: ReturnType<typeof httpProxy>['proxy'] | undefined;

const urlOf = async (p: ReturnType<typeof start>) =>
  (await p.waitFor(/listening on (\S+)/))[1] as string;

beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'logical.db'), port: 0, hashKey: HASH_KEY });
  r = reader(collector.url);
  provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  process.env.TOOLSCOPE_HASH_KEY = HASH_KEY;
  const env = {
    TOOLSCOPE_HASH_KEY: HASH_KEY,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '20',
  };
  const server = start(SERVER, [], { ...env, INSTRUMENT: '1' });
  const plain = start(SERVER, [], { TOOLSCOPE_HASH_KEY: HASH_KEY });
  traced = await urlOf(server);
  const { proxy, url } = httpProxy(collector.url, await urlOf(plain), {
    TOOLSCOPE_HASH_KEY: HASH_KEY,
  });
  proxyProcess = proxy;
  proxied = await url;
}, 60_000);

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  delete process.env.TOOLSCOPE_HASH_KEY;
  proxyProcess?.child.kill('SIGKILL');
  await stopAll();
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One agent turn in a root span: `book` (an elicitation round), a task when `url` serves tasks, five `look`s. */
async function agentTurn(client: Client, url: string | undefined): Promise<string> {
  return trace.getTracer('agent').startActiveSpan('agent.turn', async (root) => {
    const booked = await client.callTool({ name: 'book', arguments: { day: 'friday' } });
    expect(booked.content).toEqual([{ type: 'text', text: 'booked friday at 19:30' }]);
    if (url) {
      const session = taskSession(client, url);
      const execution = await session.callTool('report', { month: 'may', outcome: 'completed' });
      expect((await execution.settle()).outcome).toMatchObject({ status: 'completed' });
      await session.close();
    }
    // The same look five times, the same answer each time: the loop the detectors must flag in this trace.
    for (let i = 0; i < 5; i++)
      await client.callTool({ name: 'look', arguments: { day: 'friday' } });
    root.end();
    return root.spanContext().traceId;
  });
}

/** The calls of a trace once `want` of them are stored, and its flags once the control loop is flagged. */
async function readTurn(traceId: string, want: number): Promise<{ calls: Call[]; flags: Flag[] }> {
  for (;;) {
    const { calls } = await r.api<{ calls: (Call & { tool: string })[] }>(
      `/api/calls?traceId=${traceId}&since=1h`,
    );
    const { flags } = await r.api<{ flags: Flag[] }>('/api/flags?since=1h');
    const mine = flags.filter(
      (f) => f.traceId === traceId || f.evidence.traceIds?.includes(traceId),
    );
    if (calls.length >= want && mine.some((f) => f.tool === 'look')) return { calls, flags: mine };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One call per tool of the turn, no flag but the control loop's, and the call's span as the collector has it. */
async function expectOneCallEach(traceId: string, tools: string[]): Promise<Record<string, Span>> {
  const { calls, flags } = await readTurn(traceId, tools.length + 5);
  const byTool = (tool: string) =>
    calls.filter((c) => (c as Call & { tool: string }).tool === tool);
  const spans: Record<string, Span> = {};
  for (const tool of tools) {
    expect(byTool(tool), tool).toHaveLength(1);
    spans[tool] = await r.spanOf(byTool(tool)[0] as Call);
  }
  // What the call went through, as /api/calls says it: one span saw it whole.
  expect(byTool('book')[0]).toMatchObject({ legs: 2, parts: 1, task: null, complete: true });
  expect((byTool('book')[0] as unknown as { inputWaitMs: number }).inputWaitMs).toBeGreaterThan(0);
  if (tools.includes('report'))
    expect(byTool('report')[0]).toMatchObject({
      legs: 1,
      parts: 1,
      task: { polls: POLLS_TO_COMPLETE, pollIntervalMs: POLL_MS, status: 'completed' },
      complete: true,
    });
  expect(flags.filter((f) => f.tool !== 'look')).toEqual([]);
  const { tools: stats } = await r.api<{ tools: { name: string; calls: number }[] }>(
    '/api/tools?since=1h',
  );
  for (const tool of tools)
    expect(stats.find((t) => t.name === tool)?.calls).toBeGreaterThanOrEqual(1);
  return spans;
}

describe('one logical call, into a collector', () => {
  it('through the adapters: an input round and a polled task are one call each, with no loop flag', async () => {
    const client = instrumentMcpClient(agentClient('adapters-agent', true), {
      conversationId: 'conv-adapters',
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(traced)));
    const traceId = await agentTurn(client, traced);
    await client.close();
    const spans = await expectOneCallEach(traceId, ['book', 'report']);
    expect(spans.book?.attributes).toMatchObject({ 'toolscope.call.legs': 2 });
    expect(spans.report?.attributes).toMatchObject({
      'toolscope.task.polls': POLLS_TO_COMPLETE,
      'toolscope.task.status': 'completed',
    });
    const { tools } = await r.api<{ tools: { name: string; calls: number }[] }>(
      '/api/tools?since=1h&tool=book',
    );
    expect(tools.find((t) => t.name === 'book')?.calls).toBe(1);
  });

  it('through the proxy over HTTP, in front of an uninstrumented server: the same', async () => {
    // Traced, so the proxy's spans are the children of the agent's (an untraced client's calls are new traces).
    const client = instrumentMcpClient(agentClient('proxied-agent', true));
    await client.connect(new StreamableHTTPClientTransport(new URL(proxied)));
    const traceId = await agentTurn(client, proxied);
    await client.close();
    const spans = await expectOneCallEach(traceId, ['book', 'report']);
    expect(spans.book?.attributes).toMatchObject({
      'toolscope.proxy': true,
      'toolscope.call.legs': 2,
    });
    expect(spans.report?.attributes).toMatchObject({
      'toolscope.proxy': true,
      'toolscope.task.polls': POLLS_TO_COMPLETE,
      'toolscope.task.status': 'completed',
    });
  });
});
