// Spans sent by the real OTel exporters (protobuf, JSON, gzip) to a collector on a loopback port, read back
// through the JSON API: every tool attribute lands in a typed column, every span stays whole.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { defineTool } from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CallsResponse, ToolsResponse, TraceResponse } from '../src/api/schemas.js';
import {
  type ExporterKind,
  exportingProvider,
  getJson,
  startTestCollector,
  type TestCollector,
} from './harness.js';

let collector: TestCollector;
beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  collector = await startTestCollector();
});
afterAll(async () => {
  context.disable();
  await collector.stop();
});

async function sendToolCalls(kind: ExporterKind, gzip: boolean, tool: string) {
  const { provider } = exportingProvider(collector.url, kind, { gzip });
  const t = defineTool({
    name: tool,
    version: '3',
    effect: 'read',
    description: 'd',
    input: z.object({ customerId: z.string() }).strict(),
    output: z.object({ ok: z.boolean() }),
    tracerProvider: provider,
    hashKey: 'k',
    execute: () => ({ ok: true }),
  });
  const parent = provider.getTracer('agent').startSpan('agent.turn');
  await context.with(trace.setSpan(context.active(), parent), async () => {
    await t.call({ customerId: 'cus_1' }, { conversationId: `conv-${tool}` });
    await t.call({ customerId: 42 }, { conversationId: `conv-${tool}` });
  });
  parent.end();
  await provider.forceFlush();
  await provider.shutdown();
  return t;
}

describe.each([
  ['proto', false],
  ['proto', true],
  ['json', false],
  ['json', true],
] as const)('ingest with the %s exporter (gzip %s)', (kind, gzip) => {
  const tool = `tool_${kind}_${gzip ? 'gz' : 'plain'}`;

  it('stores tool calls with typed fields that the API returns', async () => {
    const t = await sendToolCalls(kind, gzip, tool);
    const calls = await getJson<CallsResponse>(`${collector.url}/api/calls?tool=${tool}`);
    expect(calls.status).toBe(200);
    expect(calls.body.calls).toHaveLength(2);
    const [invalid, ok] = calls.body.calls; // newest first
    expect(ok).toMatchObject({
      tool,
      version: '3',
      schemaHash: t.schemaHash,
      attempt: 1,
      code: null,
      partialEffect: false,
      inputShape: 'customerId:string',
      conversationId: `conv-${tool}`,
    });
    expect(invalid).toMatchObject({
      code: 'INVALID_INPUT',
      retryable: false,
      inputShape: 'customerId:number',
      issues: [
        {
          path: 'customerId',
          code: 'invalid_type',
          message: 'Invalid input: expected string, received number',
        },
      ],
    });
    expect(ok?.inputHash).toMatch(/^[0-9a-f]{16}$/);
    expect(Number.isNaN(Date.parse(ok?.startTime ?? ''))).toBe(false);

    const tools = await getJson<ToolsResponse>(`${collector.url}/api/tools`);
    expect(tools.body.tools.find((x) => x.name === tool)).toMatchObject({
      calls: 2,
      errors: 1,
      errorRate: 0.5,
      codes: { INVALID_INPUT: 1 },
      versions: ['3'],
    });
  });

  it('keeps every span of the trace with attributes, resource and parent ids', async () => {
    const calls = await getJson<CallsResponse>(`${collector.url}/api/calls?tool=${tool}`);
    const traceId = calls.body.calls[0]?.traceId ?? '';
    const trace = await getJson<TraceResponse>(`${collector.url}/api/traces/${traceId}`);
    expect(trace.status).toBe(200);
    expect(trace.body.spans.map((s) => s.name)).toEqual([
      'agent.turn',
      `execute_tool ${tool}`,
      `execute_tool ${tool}`,
    ]);
    const [root, first] = trace.body.spans;
    expect(first?.parentSpanId).toBe(root?.spanId);
    expect(first?.resource['service.name']).toBe(`svc-${kind}`);
    expect(first?.attributes['gen_ai.tool.name']).toBe(tool);
    expect(first?.attributes['toolscope.attempt']).toBe(1);
    expect(first?.scope.name).toBe('@toolscope/instrument');
    const conversation = await getJson<{ traceIds: string[]; spans: unknown[] }>(
      `${collector.url}/api/conversations/conv-${tool}`,
    );
    expect(conversation.body.traceIds).toEqual([traceId]);
    expect(conversation.body.spans).toHaveLength(3);
  });
});
