// The retry-loop story in one script: an agent sends { customerId: 42 }, gets a repairable INVALID_INPUT,
// fixes it; a flaky upstream is retried within the cap; a write times out after dispatch and is not retried.
// Prints each envelope and the span Toolscope recorded for it.
import type { Attributes } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';

const printed: ReadableSpan[] = [];
const exporter: SpanExporter = {
  export: (spans, done) => {
    printed.push(...spans);
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});

let upstreamCalls = 0;
const getOrder = defineTool({
  name: 'get_order',
  version: '1',
  effect: 'read',
  description: 'Orders of one customer',
  input: z
    .object({
      customerId: z.string().min(1).describe('Customer identifier such as "cus_1"'),
      includeHistory: z.boolean().default(false),
    })
    .strict(),
  output: z.object({
    found: z.boolean(),
    customerId: z.string(),
    orders: z.array(z.object({ id: z.string(), status: z.enum(['pending', 'paid', 'cancelled']) })),
  }),
  retry: { maxAttempts: 3, backoffMs: 20 },
  tracerProvider,
  hashKey: 'example-key',
  execute: async ({ customerId }) => {
    upstreamCalls++;
    if (upstreamCalls === 2) throw Object.assign(new Error('upstream busy'), { status: 503 });
    return { found: true, customerId, orders: [{ id: 'ord_1', status: 'paid' as const }] };
  },
});

const orderIntent = defineTool({
  name: 'order_intent',
  version: '1',
  effect: 'write',
  description: 'Create an order intent',
  input: z.object({ sku: z.string(), quantity: z.number().int().positive() }).strict(),
  output: z.object({ intentId: z.string() }),
  timeoutMs: 50,
  tracerProvider,
  hashKey: 'example-key',
  // The upstream applies the write but never answers in time.
  execute: () => new Promise<never>(() => {}),
});

function show(title: string, result: unknown): void {
  const span = printed.at(-1);
  console.log(`\n▶ ${title}`);
  console.log(`  envelope: ${JSON.stringify(result)}`);
  if (!span) return;
  const attrs: Attributes = span.attributes;
  const keep = Object.entries(attrs).filter(
    ([k]) => k.startsWith('toolscope.') || k === 'error.type',
  );
  console.log(`  span ${span.name} (${span.status.code === 2 ? 'ERROR' : 'OK'})`);
  for (const [k, v] of keep) console.log(`    ${k} = ${JSON.stringify(v)}`);
}

show(
  'agent sends { customerId: 42 }',
  await getOrder.call({ customerId: 42 }, { conversationId: 'conv_1' }),
);
show(
  'agent repairs the field it was told about',
  await getOrder.call({ customerId: 'cus_42' }, { conversationId: 'conv_1' }),
);
show(
  'upstream 503 on the first try, retried within the cap',
  await getOrder.call({ customerId: 'cus_7' }),
);
show(
  'a write times out after dispatch, no idempotency key',
  await orderIntent.call({ sku: 'sku_1', quantity: 1 }),
);
console.log(`\nschema hash of get_order: ${getOrder.schemaHash}`);
process.exit(0);
