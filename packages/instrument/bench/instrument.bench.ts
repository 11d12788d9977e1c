// `pnpm bench:instrument`: the cost of a defineTool call against a bare validated call and the same call
// with one hand-made OTel span, measured in one run on this machine. Prints numbers; asserts nothing.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { defineTool } from '../src/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);

const noopExporter: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};
const provider = new BasicTracerProvider({
  spanProcessors: [
    new BatchSpanProcessor(noopExporter, { maxQueueSize: 65_536, maxExportBatchSize: 512 }),
  ],
});
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
await provider.shutdown();

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
