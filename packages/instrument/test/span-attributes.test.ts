// Every attribute of the span contract (docs/span-contract.md), checked by name and value on real SDK spans.
import { createHmac } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/canonical-json.js';
import { defineTool } from '../src/index.js';
import {
  getOrderInput,
  getOrderOutput,
  okOrders,
  orderIntentInput,
  orderIntentOutput,
} from './fixtures.js';
import { createTracing } from './tracing.js';

const hmac16 = (key: string, text: string) =>
  createHmac('sha256', key).update(text).digest('hex').slice(0, 16);

function tools() {
  const tracing = createTracing();
  const getOrder = defineTool({
    name: 'get_order',
    version: '3',
    effect: 'read',
    description: 'Orders of a customer',
    input: getOrderInput,
    output: getOrderOutput,
    tracerProvider: tracing.provider,
    hashKey: 'k',
    execute: (input) => okOrders(input.customerId),
  });
  const orderIntent = defineTool({
    name: 'order_intent',
    version: '2',
    effect: 'write',
    description: 'Create an order intent',
    input: orderIntentInput,
    output: orderIntentOutput,
    tracerProvider: tracing.provider,
    hashKey: 'k',
    execute: (_input, ctx) => ctx.reject('out_of_stock', 'SKU is out of stock'),
  });
  return { tracing, getOrder, orderIntent };
}

describe('span contract', () => {
  it('a successful call carries every always-present attribute and no error attributes', async () => {
    const { tracing, getOrder } = tools();
    const input = { customerId: 'cus_1', includeHistory: true };
    const result = await getOrder.call(input, { callId: 'call_1', conversationId: 'conv_1' });
    const span = tracing.only();
    expect(span.name).toBe('execute_tool get_order');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.instrumentationScope.name).toBe('@toolscope/instrument');
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_order',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.conversation.id': 'conv_1',
      'toolscope.schema.version': '3',
      'toolscope.schema.hash': getOrder.schemaHash,
      'toolscope.attempt': 1,
      'toolscope.effect': 'read',
      'toolscope.partial_effect': false,
      'toolscope.input.hash': hmac16('k', canonicalJson(input)),
      'toolscope.input.shape': 'customerId:string,includeHistory:boolean',
      // What the caller got back, as the model will read it: the envelope's JSON.
      'toolscope.output.bytes': Buffer.byteLength(JSON.stringify(result)),
      'toolscope.output.tokens': expect.any(Number),
      // The same keyed hash over the envelope's canonical JSON.
      'toolscope.output.hash': hmac16('k', canonicalJson(result)),
    });
    expect(span.attributes['toolscope.output.tokens']).toBeGreaterThan(5);
    expect(getOrder.schemaHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('INVALID_INPUT sets error.type, code, retryable, issues and ERROR status', async () => {
    const { tracing, getOrder } = tools();
    await getOrder.call({ customerId: 42 });
    const span = tracing.only();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INVALID_INPUT' });
    expect(span.attributes['error.type']).toBe('INVALID_INPUT');
    expect(span.attributes['toolscope.error.code']).toBe('INVALID_INPUT');
    expect(span.attributes['toolscope.retryable']).toBe(false);
    expect(span.attributes['toolscope.partial_effect']).toBe(false);
    expect(span.attributes['toolscope.input.shape']).toBe('customerId:number');
    expect(JSON.parse(String(span.attributes['toolscope.validation.issues']))).toEqual([
      {
        path: 'customerId',
        code: 'invalid_type',
        message: 'Invalid input: expected string, received number',
      },
    ]);
    expect(span.attributes['toolscope.error.reason']).toBeUndefined();
  });

  it('REJECTED carries the reason; the idempotency key appears only as a keyed hash', async () => {
    const { tracing, orderIntent } = tools();
    await orderIntent.call({ sku: 's', quantity: 1 }, { idempotencyKey: 'idem-secret-123' });
    const span = tracing.only();
    expect(span.attributes['toolscope.effect']).toBe('write');
    expect(span.attributes['toolscope.error.code']).toBe('REJECTED');
    expect(span.attributes['toolscope.error.reason']).toBe('out_of_stock');
    expect(span.attributes['toolscope.idempotency_key.hash']).toBe(hmac16('k', 'idem-secret-123'));
    expect(JSON.stringify(span.attributes)).not.toContain('idem-secret-123');
  });

  it('caps validation issues at 20 entries of at most 200 characters', async () => {
    const tracing = createTracing();
    const long = 'x'.repeat(500);
    const shape = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `f${i}`,
        getOrderInput.shape.customerId.refine(() => false, long),
      ]),
    );
    const tool = defineTool({
      name: 'wide',
      version: '1',
      effect: 'read',
      description: '',
      tracerProvider: tracing.provider,
      input: getOrderInput.extend(shape).strip(),
      output: getOrderOutput,
      execute: () => okOrders('x'),
    });
    await tool.call(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 'v'])));
    const issues = JSON.parse(String(tracing.only().attributes['toolscope.validation.issues'])) as {
      message: string;
    }[];
    expect(issues).toHaveLength(20);
    for (const issue of issues) expect(issue.message.length).toBeLessThanOrEqual(200);
  });

  it('uses the caller attempt number when the caller counts retries itself', async () => {
    const { tracing, getOrder } = tools();
    const result = await getOrder.call({ customerId: 'c' }, { attempt: 4 });
    expect(result).toMatchObject({ ok: true, attempt: 4 });
    expect(tracing.only().attributes['toolscope.attempt']).toBe(4);
  });

  it('goes through the global tracer provider by default and nests under the active span', async () => {
    const tracing = createTracing();
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    trace.setGlobalTracerProvider(tracing.provider);
    try {
      const tool = defineTool({
        name: 'nested',
        version: '1',
        effect: 'read',
        description: '',
        input: getOrderInput,
        output: getOrderOutput,
        execute: async (input) => {
          // Work done by the executor is a child of the tool span.
          trace.getTracer('svc').startActiveSpan('db.query', (s) => s.end());
          return okOrders(input.customerId);
        },
      });
      await trace.getTracer('agent').startActiveSpan('agent.turn', async (parent) => {
        await tool.call({ customerId: 'c' });
        parent.end();
      });
      const byName = new Map(tracing.spans().map((s) => [s.name, s]));
      const agent = byName.get('agent.turn');
      const toolSpan = byName.get('execute_tool nested');
      const db = byName.get('db.query');
      expect(toolSpan?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId);
      expect(db?.parentSpanContext?.spanId).toBe(toolSpan?.spanContext().spanId);
      expect(toolSpan?.spanContext().traceId).toBe(agent?.spanContext().traceId);
    } finally {
      trace.disable();
      context.disable();
    }
  });
});

afterEach(() => {
  trace.disable();
});
