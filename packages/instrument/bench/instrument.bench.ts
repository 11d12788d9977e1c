// `pnpm bench:instrument`: a defineTool call against a bare validated call with one hand-made span, then the MCP
// adapters against a hand-written span, Traceloop and Sentry, all in one run, one turn of the event loop per call,
// with the spans each variant exported counted and the load average printed. Prints numbers; asserts nothing.

import { loadavg } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { z } from 'zod';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '../src/index.js';
import { closeSentry, sentrySpans, traceloopClients, withSentry } from './mcp-peers.js';
import { type Counted, countingProvider, noopProvider } from './noop-provider.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);

const provider = noopProvider();
const tracer = provider.getTracer('bench');

const input = z
  .object({ customerId: z.string().min(1), includeHistory: z.boolean().default(false) })
  .strict();
const output = z.object({
  found: z.boolean(),
  customerId: z.string(),
  orders: z.array(z.object({ id: z.string(), status: z.enum(['pending', 'paid', 'cancelled']) })),
});
type Out = z.input<typeof output>;
const service = async (customerId: string): Promise<Out> => ({
  found: true,
  customerId,
  orders: [{ id: 'ord_1', status: 'paid' }],
});
const raw = { customerId: 'cus_1', includeHistory: true };

async function bare(): Promise<unknown> {
  const parsed = input.safeParse(raw);
  if (!parsed.success) return { ok: false };
  const out = output.safeParse(await service(parsed.data.customerId));
  return out.success ? { ok: true, data: out.data } : { ok: false };
}

async function bareWithSpan(): Promise<unknown> {
  const span = tracer.startSpan('execute_tool get_order', {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_order',
      'toolscope.schema.version': '1',
      'toolscope.schema.hash': '0123456789abcdef',
      'toolscope.attempt': 1,
      'toolscope.effect': 'read',
      'toolscope.partial_effect': false,
      'toolscope.input.hash': '0123456789abcdef',
      'toolscope.input.shape': 'customerId:string,includeHistory:boolean',
      'gen_ai.tool.call.id': 'call_1',
    },
  });
  const result = await bare();
  span.setStatus({ code: SpanStatusCode.UNSET });
  span.end();
  return result;
}

const tool = defineTool({
  name: 'get_order',
  version: '1',
  effect: 'read',
  description: 'Orders of one customer',
  input,
  output,
  tracerProvider: provider,
  hashKey: 'bench-key',
  execute: (i) => service(i.customerId),
});
const viaTool = () => tool.call(raw, { callId: 'call_1' });

async function measure(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1000 / CALLS;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

const variants = { bare, bareWithSpan, defineTool: viaTool } as const;
const samples: Record<keyof typeof variants, number[]> = {
  bare: [],
  bareWithSpan: [],
  defineTool: [],
};
for (const fn of Object.values(variants)) await measure(fn); // warm-up: JIT and caches for all three
for (let r = 0; r < ROUNDS; r++) {
  // Interleaved rounds, so drift of the machine hits every variant alike.
  for (const [name, fn] of Object.entries(variants) as [
    keyof typeof variants,
    () => Promise<unknown>,
  ][]) {
    samples[name].push(await measure(fn));
  }
}

const b = median(samples.bare);
const s = median(samples.bareWithSpan);
const t = median(samples.defineTool);
const fmt = (n: number) => n.toFixed(2).padStart(7);
console.log(
  `bench:instrument  node ${process.version}  ${ROUNDS} rounds × ${CALLS} calls, median µs per call`,
);
console.log(`  bare validated call (parse, execute, parse)        ${fmt(b)} µs`);
console.log(`  + one OTel span, 10 attributes (BatchSpanProcessor) ${fmt(s)} µs`);
console.log(`  defineTool().call                                  ${fmt(t)} µs`);
console.log(`  ratio defineTool / bare+span                       ${fmt(t / s)}   (target ≤ 2)`);

// ── MCP: µs per tools/call over InMemoryTransport, one turn of the event loop per call ──
// A real transport hands each message to its own I/O callback, so work an adapter leaves for later runs in the turn
// after each call; here every call is followed by one turn, inside the timed window, for every variant alike.
// Each traced variant exports to a counter of its own: one that ends fewer spans than it made calls is broken.
const MCP_CALLS = Number(process.env.BENCH_MCP_CALLS ?? 1_000);
const MCP_ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 40);

const shape = { customerId: z.string().min(1), includeHistory: z.boolean().default(false) };
const plainHandler = async ({ customerId }: { customerId: string }) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(await service(customerId)) }],
});
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function mcpPair(
  setup: (server: McpServer) => void,
  makeClient: () => Client = () => new Client({ name: 'bench-client', version: '1' }),
  wrap: (server: McpServer) => McpServer = (server) => server,
): Promise<() => Promise<unknown>> {
  const server = wrap(new McpServer({ name: 'bench', version: '1' }));
  setup(server);
  const client = makeClient();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return () => client.callTool({ name: 'get_order', arguments: raw });
}

const counted = {
  handWrittenSpan: countingProvider('tools/call get_order'),
  instrumented: countingProvider('tools/call get_order'),
  defineToolOverMcp: countingProvider('tools/call get_order'),
  traceloopClient: countingProvider('get_order.tool'),
  instrumentedClient: countingProvider('tools/call get_order'),
};
const options = (v: keyof typeof counted) => ({
  tracerProvider: counted[v].provider,
  hashKey: 'bench-key',
});
const handTracer = counted.handWrittenSpan.provider.getTracer('bench');

const mcpVariants = {
  bare: await mcpPair((server) => {
    server.registerTool('get_order', { inputSchema: shape }, plainHandler);
  }),
  handWrittenSpan: await mcpPair((server) => {
    server.registerTool('get_order', { inputSchema: shape }, async (args, extra) => {
      const span = handTracer.startSpan('tools/call get_order', {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_order',
          'jsonrpc.request.id': String(extra.requestId),
          'mcp.protocol.version': '2025-11-25',
          'network.transport': 'pipe',
          'toolscope.schema.version': '1',
          'toolscope.schema.hash': '0123456789abcdef',
          'toolscope.attempt': 1,
          'toolscope.effect': 'read',
          'toolscope.partial_effect': false,
          'toolscope.input.shape': 'customerId:string',
        },
      });
      try {
        return await plainHandler(args);
      } finally {
        span.end();
      }
    });
  }),
  instrumented: await mcpPair((server) => {
    server.registerTool(
      'get_order',
      { inputSchema: shape, annotations: { readOnlyHint: true } },
      plainHandler,
    );
    instrumentMcpServer(server, options('instrumented'));
  }),
  defineToolOverMcp: await mcpPair((server) => {
    instrumentMcpServer(server, options('defineToolOverMcp'));
    registerMcpTool(server, tool);
  }),
  traceloopClient: await mcpPair((server) => {
    server.registerTool('get_order', { inputSchema: shape }, plainHandler);
  }, traceloopClients(counted.traceloopClient.provider)),
  sentryServer: await mcpPair(
    (server) => {
      server.registerTool('get_order', { inputSchema: shape }, plainHandler);
    },
    undefined,
    withSentry,
  ),
  instrumentedClient: await mcpPair(
    (server) => {
      server.registerTool('get_order', { inputSchema: shape }, plainHandler);
    },
    () =>
      instrumentMcpClient(
        new Client({ name: 'bench-client', version: '1' }),
        options('instrumentedClient'),
      ),
  ),
} as const;
type McpVariant = keyof typeof mcpVariants;

/** µs per call: wall time and the process's CPU time (user + system, every thread, GC included). */
type McpSample = { total: number; cpu: number };

const made: Record<McpVariant, number> = Object.fromEntries(
  Object.keys(mcpVariants).map((k) => [k, 0]),
) as Record<McpVariant, number>;

async function measureMcp(name: McpVariant, fn: () => Promise<unknown>): Promise<McpSample> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < MCP_CALLS; i++) {
    await fn();
    await turn();
  }
  const end = process.hrtime.bigint();
  const used = process.cpuUsage(cpu);
  made[name] += MCP_CALLS;
  return {
    total: Number(end - start) / 1000 / MCP_CALLS,
    cpu: (used.user + used.system) / MCP_CALLS,
  };
}

const mcpSamples = Object.fromEntries(
  Object.keys(mcpVariants).map((k) => [k, [] as McpSample[]]),
) as Record<McpVariant, McpSample[]>;
const mcpOrder = Object.entries(mcpVariants) as [McpVariant, () => Promise<unknown>][];
const loadBefore = loadavg();
const sentryBefore = sentrySpans();
for (const [name, fn] of mcpOrder) await measureMcp(name, fn);
for (let r = 0; r < MCP_ROUNDS; r++) {
  // The order turns by one each round: a round right after a costly variant (Sentry's, ours) inherits part of its
  // garbage collection, so in a fixed order each variant's figure depended on its neighbour (mcp-ab.ts).
  for (let j = 0; j < mcpOrder.length; j++) {
    const [name, fn] = mcpOrder[(j + r) % mcpOrder.length] as [McpVariant, () => Promise<unknown>];
    mcpSamples[name].push(await measureMcp(name, fn));
  }
}
const loadAfter = loadavg();
const exported: Partial<Record<McpVariant, number>> = {};
for (const [name, c] of Object.entries(counted) as [keyof typeof counted, Counted][]) {
  await c.provider.forceFlush();
  exported[name] = c.spans();
  await c.provider.shutdown();
}
exported.sentryServer = sentrySpans() - sentryBefore;
await provider.shutdown();
await closeSentry();

const of = (v: McpVariant, k: keyof McpSample) => median(mcpSamples[v].map((x) => x[k]));
const adds = (v: McpVariant, k: keyof McpSample) => of(v, k) - of('bare', k);
/** A traced variant that exported fewer spans than it made calls is broken, whatever its time. */
const broken = (v: McpVariant) => exported[v] !== undefined && (exported[v] as number) < made[v];
const spansOf = (v: McpVariant) =>
  exported[v] === undefined ? '' : `${exported[v]} of ${made[v]}${broken(v) ? '  BROKEN' : ''}`;
console.log(
  `\nbench:instrument MCP  ${MCP_ROUNDS} rounds × ${MCP_CALLS} tools/call over InMemoryTransport, one turn of the event loop after each call, median µs per call`,
);
console.log(
  `  load average (1, 5, 15 min) before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
);
console.log(`  ${''.padEnd(42)}     wall    adds |     CPU    adds | spans exported`);
const row = (label: string, v: McpVariant) =>
  console.log(
    `  ${label.padEnd(42)} ${fmt(of(v, 'total'))} ${fmt(adds(v, 'total'))} | ${fmt(of(v, 'cpu'))} ${fmt(adds(v, 'cpu'))} | ${spansOf(v)}`,
  );
row('bare McpServer tool', 'bare');
row('+ hand-written span, 12 attributes', 'handWrittenSpan');
row('instrumentMcpServer', 'instrumented');
row('defineTool via registerMcpTool', 'defineToolOverMcp');
row('Traceloop instrumentation-mcp (client)', 'traceloopClient');
row('Sentry wrapMcpServerWithSentry (server)', 'sentryServer');
row('instrumentMcpClient', 'instrumentedClient');
console.log('  ratio of added cost (wall; CPU)');
for (const [label, v, ref, target] of [
  ['instrumentMcpServer / Traceloop', 'instrumented', 'traceloopClient', 'CPU ≤ 2.5'],
  ['instrumentMcpClient / Traceloop', 'instrumentedClient', 'traceloopClient', 'CPU ≤ 2.5'],
  ['registerMcpTool / Traceloop', 'defineToolOverMcp', 'traceloopClient', ''],
  ['instrumentMcpServer / hand-written span', 'instrumented', 'handWrittenSpan', ''],
  ['instrumentMcpServer / Sentry', 'instrumented', 'sentryServer', ''],
] as const) {
  const state = broken(v) || broken(ref) ? '   BROKEN: a variant lost spans' : '';
  console.log(
    `    ${label.padEnd(40)} ${fmt(adds(v, 'total') / adds(ref, 'total'))}; ${fmt(adds(v, 'cpu') / adds(ref, 'cpu'))}${target ? `   (target ${target})` : ''}${state}`,
  );
}
