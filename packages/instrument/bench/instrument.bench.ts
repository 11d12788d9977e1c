// `pnpm bench:instrument`: a defineTool call against a bare validated call with one hand-made span, then the MCP
// adapters against a hand-written span, Traceloop and Sentry, all in one run. Prints numbers; asserts nothing.

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
import { noopProvider } from './noop-provider.js';

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

// ── MCP: µs per tools/call over InMemoryTransport (client not instrumented in any variant) ──
const MCP_CALLS = Number(process.env.BENCH_MCP_CALLS ?? 1_000);
const MCP_ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 40);

const traceloopClient = traceloopClients(provider);

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

const shape = { customerId: z.string().min(1), includeHistory: z.boolean().default(false) };
const plainHandler = async ({ customerId }: { customerId: string }) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(await service(customerId)) }],
});

const mcpVariants = {
  bare: await mcpPair((server) => {
    server.registerTool('get_order', { inputSchema: shape }, plainHandler);
  }),
  handWrittenSpan: await mcpPair((server) => {
    server.registerTool('get_order', { inputSchema: shape }, async (args, extra) => {
      const span = tracer.startSpan('tools/call get_order', {
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
    instrumentMcpServer(server, { tracerProvider: provider, hashKey: 'bench-key' });
  }),
  defineToolOverMcp: await mcpPair((server) => {
    instrumentMcpServer(server, { tracerProvider: provider, hashKey: 'bench-key' });
    registerMcpTool(server, tool);
  }),
  traceloopClient: await mcpPair((server) => {
    server.registerTool('get_order', { inputSchema: shape }, plainHandler);
  }, traceloopClient),
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
      instrumentMcpClient(new Client({ name: 'bench-client', version: '1' }), {
        tracerProvider: provider,
        hashKey: 'bench-key',
      }),
  ),
} as const;

/**
 * µs per call: wall time until the last response arrived, wall time with the turn of the event loop that runs
 * deferred work, and the process's CPU time (user + system, every thread) over the same span.
 */
type McpSample = { response: number; total: number; cpu: number };

async function measureMcp(fn: () => Promise<unknown>): Promise<McpSample> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < MCP_CALLS; i++) await fn();
  const answered = process.hrtime.bigint();
  // InMemoryTransport runs on microtasks: work an adapter defers to a later turn would otherwise run after the
  // clock stops (on the next variant's time). One turn of the event loop runs it inside this variant's time.
  await new Promise((resolve) => setImmediate(resolve));
  const end = process.hrtime.bigint();
  const used = process.cpuUsage(cpu);
  return {
    response: Number(answered - start) / 1000 / MCP_CALLS,
    total: Number(end - start) / 1000 / MCP_CALLS,
    cpu: (used.user + used.system) / MCP_CALLS,
  };
}

type McpVariant = keyof typeof mcpVariants;
const mcpSamples = Object.fromEntries(
  Object.keys(mcpVariants).map((k) => [k, [] as McpSample[]]),
) as Record<McpVariant, McpSample[]>;
for (const fn of Object.values(mcpVariants)) await measureMcp(fn);
const mcpOrder = Object.entries(mcpVariants) as [McpVariant, () => Promise<unknown>][];
for (let r = 0; r < MCP_ROUNDS; r++) {
  // The order turns by one each round: a round right after a costly variant (Sentry's, ours) inherits part of its
  // garbage collection, so in a fixed order each variant's figure depended on its neighbour (mcp-ab.ts).
  for (let j = 0; j < mcpOrder.length; j++) {
    const [name, fn] = mcpOrder[(j + r) % mcpOrder.length] as [McpVariant, () => Promise<unknown>];
    mcpSamples[name].push(await measureMcp(fn));
  }
}
await provider.shutdown();
await closeSentry();

const of = (v: McpVariant, k: keyof McpSample) => median(mcpSamples[v].map((x) => x[k]));
const adds = (v: McpVariant, k: keyof McpSample) => of(v, k) - of('bare', k);
console.log(
  `\nbench:instrument MCP  ${MCP_ROUNDS} rounds × ${MCP_CALLS} tools/call over InMemoryTransport, median µs per call`,
);
console.log(
  '  "total" includes one turn of the event loop after the last call (work deferred past the',
);
console.log(
  '  response); "response" stops the clock when the last response arrived; "CPU" is process time',
);
console.log(`  ${''.padEnd(42)}    total   adds | response adds |   CPU adds`);
const row = (label: string, v: McpVariant) =>
  console.log(
    `  ${label.padEnd(42)} ${fmt(of(v, 'total'))} ${fmt(adds(v, 'total'))} |      ${fmt(adds(v, 'response'))} | ${fmt(adds(v, 'cpu'))}`,
  );
row('bare McpServer tool', 'bare');
row('+ hand-written span, 12 attributes', 'handWrittenSpan');
row('instrumentMcpServer', 'instrumented');
row('defineTool via registerMcpTool', 'defineToolOverMcp');
row('Traceloop instrumentation-mcp (client)', 'traceloopClient');
row('Sentry wrapMcpServerWithSentry (server)', 'sentryServer');
row('instrumentMcpClient', 'instrumentedClient');
console.log(`  ratio of added cost (total; response; CPU)`);
for (const [label, v, ref, target] of [
  ['instrumentMcpServer / hand-written span', 'instrumented', 'handWrittenSpan', '≤ 1.5'],
  ['instrumentMcpServer / Traceloop', 'instrumented', 'traceloopClient', '≤ 1'],
  ['instrumentMcpServer / Sentry', 'instrumented', 'sentryServer', '≤ 1'],
  ['instrumentMcpClient / Traceloop', 'instrumentedClient', 'traceloopClient', '≤ 1'],
  ['registerMcpTool / Traceloop', 'defineToolOverMcp', 'traceloopClient', '≤ 1'],
] as const)
  console.log(
    `    ${label.padEnd(40)} ${fmt(adds(v, 'total') / adds(ref, 'total'))}; ${fmt(adds(v, 'response') / adds(ref, 'response'))}; ${fmt(adds(v, 'cpu') / adds(ref, 'cpu'))}   (target ${target})`,
  );
console.log(`  (Sentry recorded ${sentrySpans()} spans)`);
