// A plain fixture (no hostile strings, so its pictures may go in the docs) for what a newcomer reads: one
// conversation, within seconds, where an agent sends invalid input three times and retries a write that timed
// out after its effect, without an idempotency key (four flags pinned, loops with their cost); a tool called
// once, unversioned; and one tool called 30 minutes apart, the only one whose calls fall in two steps.
import { context, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';
import { exportingProvider } from './seed.js';

export const CONVERSATION = 'conv-checkout-long';

async function within<T>(root: Span, fn: () => Promise<T>): Promise<T> {
  return context.with(trace.setSpan(context.active(), root), fn);
}

export async function seedReadable(url: string): Promise<{ firstCallMs: number }> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const shop = exportingProvider(url, 'shop-mcp');
  const common = { tracerProvider: shop, hashKey: 'readable-fixture' } as const;
  const getCustomer = defineTool({
    ...common,
    name: 'get_customer_with_order_history',
    version: '2',
    effect: 'read',
    description: 'A customer and their past orders',
    input: z.object({ customerId: z.string() }).strict(),
    output: z.object({ id: z.string() }),
    execute: ({ customerId }) => ({ id: customerId }),
  });
  const placeOrder = defineTool({
    ...common,
    name: 'place_order',
    version: '3',
    effect: 'write',
    description: 'Places an order',
    input: z.object({ sku: z.string() }).strict(),
    output: z.object({ orderId: z.string() }),
    timeoutMs: 40,
    // The upstream took the order and never answered in time.
    execute: async (_input, ctx) => {
      ctx.markPartialEffect();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return { orderId: 'never' };
    },
  });
  const lookupOnce = defineTool({
    ...common,
    name: 'lookup_once',
    version: 'unversioned',
    effect: 'read',
    description: 'Called once',
    input: z.object({}).strict(),
    output: z.object({ ok: z.boolean() }),
    execute: () => ({ ok: true }),
  });

  const firstCallMs = Date.now();
  const agent = shop.getTracer('scripted-agent');
  const turn = agent.startSpan('agent.turn');
  await within(turn, async () => {
    const conversationId = CONVERSATION;
    for (let i = 0; i < 3; i++) await getCustomer.call({ customerId: 42 }, { conversationId });
    for (let i = 0; i < 2; i++) await placeOrder.call({ sku: 'sku-lamp' }, { conversationId });
    await lookupOnce.call({}, { conversationId });
  });
  turn.end();

  // Another instrumentation's tool, called 30 minutes ago and now.
  const other = agent;
  for (const ago of [30 * 60_000, 0]) {
    const s = other.startSpan('execute_tool poll_status', {
      kind: 1,
      startTime: new Date(Date.now() - ago),
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'poll_status' },
    });
    s.end(new Date(Date.now() - ago + 5));
  }

  await shop.forceFlush();
  await shop.shutdown();
  context.disable();
  return { firstCallMs };
}
