// Seeds a real collector through the real ingest path: tools wrapped with defineTool and spans of another
// instrumentation, exported by the OTel protobuf exporter. It includes the seed story (the same invalid
// input three times in one turn) and spans whose names, keys and values carry script payloads.
import { context, type Span, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';

/** Strings that would run script if any part of the UI rendered data as HTML or followed javascript: URLs. */
export const HOSTILE = {
  tool: `<img src=x onerror="window.__pwned='tool'">`,
  spanName: `</script><script>window.__pwned='span-name'</script>`,
  attrKey: `<b onmouseover="window.__pwned='key'">k</b>`,
  jsUrl: `javascript:window.__pwned='link'`,
  httpUrl: 'https://example.com/runbook?a=1&b=<x>',
  service: `<svg onload="window.__pwned='service'">`,
  message: `<script>window.__pwned='message'</script>`,
  path: `<iframe src="javascript:window.__pwned='path'">`,
  conversation: `javascript:window.__pwned='conversation'`,
  /** An MCP client's name and version (clientInfo comes from the agent). */
  client: `"><img src=x onerror="window.__pwned='client'">`,
  clientVersion: `javascript:window.__pwned='client-version'`,
} as const;

/** The hostile tool's callers: two calls from the hostile client, one from a plain one. */
export const HOSTILE_CALLERS = [
  { name: HOSTILE.client, version: HOSTILE.clientVersion },
  { name: HOSTILE.client, version: HOSTILE.clientVersion },
  { name: 'cursor', version: '1.2.3' },
] as const;

export type Seeded = {
  storyTraceId: string;
  hostileTraceId: string;
  conversationId: string;
  callId: string;
  /** A captured call whose arguments hold an e-mail address, which capture must mask. */
  capturedTraceId: string;
};

export const CAPTURED_EMAIL = 'ana.lima@example.com';

/** A tracer provider that exports to the collector at `url` with the real OTLP protobuf exporter. */
export function exportingProvider(url: string, service: string) {
  return new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }), {
        scheduledDelayMillis: 20,
      }),
    ],
  });
}

async function within<T>(root: Span, fn: () => Promise<T>): Promise<T> {
  return context.with(trace.setSpan(context.active(), root), fn);
}

export async function seed(url: string): Promise<Seeded> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const orders = exportingProvider(url, 'orders-mcp');
  const evil = exportingProvider(url, HOSTILE.service);
  const agent = orders.getTracer('scripted-agent');

  const getOrder = defineTool({
    name: 'get_order',
    version: '2',
    effect: 'read',
    description: 'One order of a customer',
    input: z.object({ customerId: z.string().describe('customer id, e.g. c-1') }).strict(),
    output: z.object({ id: z.string(), status: z.enum(['open', 'shipped']) }),
    tracerProvider: orders,
    hashKey: 'seed',
    capture: true,
    execute: ({ customerId }) => ({ id: `o-${customerId}`, status: 'open' as const }),
  });
  const catalogue = defineTool({
    name: 'catalogue_list',
    description: 'Catalogue items in a price range',
    version: '1',
    effect: 'read',
    input: z
      .object({ minPrice: z.number().min(0), maxPrice: z.number().min(0) })
      .strict()
      .refine((v) => v.minPrice <= v.maxPrice, {
        message: 'minPrice must not exceed maxPrice',
        path: ['minPrice'],
      }),
    output: z.object({ items: z.array(z.string()) }),
    tracerProvider: orders,
    hashKey: 'seed',
    execute: ({ minPrice }, ctx) => {
      if (minPrice > 900) return ctx.reject('out_of_range', 'no items that expensive');
      return { items: ['a', 'b'] };
    },
  });

  // The seed story: the model sends a number three times and is told the same thing each time.
  const story = agent.startSpan('agent.turn');
  const conversationId = 'conv-checkout-7';
  await within(story, async () => {
    for (let i = 0; i < 3; i++) await getOrder.call({ customerId: 42 }, { conversationId });
  });
  story.end();
  // A corrected retry in the same conversation, and healthy traffic.
  const fixed = agent.startSpan('agent.turn');
  const callId = 'call_7f3a9c';
  await within(fixed, async () => {
    await getOrder.call({ customerId: 42 }, { conversationId });
    await getOrder.call({ customerId: 'c-42' }, { conversationId, callId });
  });
  fixed.end();
  const captured = agent.startSpan('agent.turn');
  await within(captured, async () => {
    await getOrder.call({ customerId: CAPTURED_EMAIL });
  });
  captured.end();
  for (let i = 0; i < 12; i++) {
    const turn = agent.startSpan('agent.turn');
    await within(turn, async () => {
      await getOrder.call({ customerId: `c-${i}` });
      await catalogue.call({ minPrice: i, maxPrice: 100 });
      if (i % 4 === 0) await catalogue.call({ minPrice: 950, maxPrice: 1000 });
    });
    turn.end();
  }

  // Another instrumentation's spans, with attacker-controlled names, keys and values.
  const t = evil.getTracer(HOSTILE.service);
  const root = t.startSpan(HOSTILE.spanName, {
    attributes: {
      [HOSTILE.attrKey]: HOSTILE.jsUrl,
      'runbook.url': HOSTILE.httpUrl,
      'gen_ai.conversation.id': HOSTILE.conversation,
    },
  });
  await within(root, async () => {
    for (let i = 0; i < 3; i++) {
      const s = t.startSpan(`execute_tool ${HOSTILE.tool}`, {
        kind: 1,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': HOSTILE.tool,
          'gen_ai.conversation.id': HOSTILE.conversation,
          'gen_ai.tool.call.arguments': JSON.stringify({ q: HOSTILE.message }),
          'toolscope.error.code': 'INVALID_INPUT',
          'toolscope.retryable': false,
          'toolscope.input.hash': 'deadbeef',
          'toolscope.input.shape': `{${HOSTILE.path}:string}`,
          'toolscope.validation.issues': JSON.stringify([
            { path: HOSTILE.path, code: 'custom', message: HOSTILE.message },
          ]),
          'error.type': 'tool_error',
          'toolscope.mcp.client.name': HOSTILE_CALLERS[i]?.name ?? '',
          'toolscope.mcp.client.version': HOSTILE_CALLERS[i]?.version ?? '',
        },
      });
      s.setStatus({ code: 2, message: HOSTILE.message });
      s.end();
    }
  });
  root.end();

  await Promise.all([orders.forceFlush(), evil.forceFlush()]);
  await Promise.all([orders.shutdown(), evil.shutdown()]);
  context.disable();
  return {
    storyTraceId: story.spanContext().traceId,
    hostileTraceId: root.spanContext().traceId,
    conversationId,
    callId,
    capturedTraceId: captured.spanContext().traceId,
  };
}
