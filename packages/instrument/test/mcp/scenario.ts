// The checks every transport must pass, run by the in-memory, HTTP and stdio tests against their spans.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';

export type SpanView = {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  statusCode: number;
  links: { traceId: string; spanId: string }[];
};

/** A finished SDK span as a view. */
export function viewOf(span: ReadableSpan): SpanView {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: { ...span.attributes },
    statusCode: span.status.code,
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
  };
}

export type ScenarioResults = Awaited<ReturnType<typeof runScenario>>;

/** Drives the client through the scenario inside one client-side root span. */
export async function runScenario(client: Client) {
  const tracer = trace.getTracer('agent');
  return tracer.startActiveSpan('agent.turn', async (root) => {
    const tools = await client.listTools();
    const ok = await client.callTool({ name: 'get_order', arguments: { customerId: 'cus_1' } });
    const invalid = await client.callTool({ name: 'get_order', arguments: { customerId: 42 } });
    const broken = await client.callTool({ name: 'broken', arguments: { id: 'x' } });
    const thrower = await client.callTool({ name: 'thrower', arguments: {} });
    const legacy = await client.callTool({ name: 'legacy_echo', arguments: { text: 'hi' } });
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      (r) => ({ result: r as unknown, error: undefined as unknown }),
      (e: unknown) => ({ result: undefined as unknown, error: e }),
    );
    root.end();
    return {
      tools,
      ok,
      invalid,
      broken,
      thrower,
      legacy,
      unknown,
      rootTraceId: root.spanContext().traceId,
    };
  });
}

function byName(spans: SpanView[], name: string, kind: number): SpanView[] {
  return spans.filter((s) => s.name === name && s.kind === kind);
}

/** Asserts the scenario's results and spans; kind numbers follow OTel (SERVER 1, CLIENT 2). */
export function checkScenario(r: ScenarioResults, spans: SpanView[]): void {
  // tools/list shows the defineTool contract with its descriptions.
  const listed = r.tools.tools.find((t) => t.name === 'get_order');
  expect(listed?.inputSchema).toMatchObject({
    type: 'object',
    properties: {
      customerId: { type: 'string', description: 'Customer identifier such as "cus_1"' },
    },
    required: ['customerId'],
    additionalProperties: false,
  });
  // The output schema names the success shape and, for isError results, the failure envelope.
  expect(listed?.outputSchema).toMatchObject({
    type: 'object',
    anyOf: [
      { type: 'object', required: ['customerId', 'orders'] },
      { type: 'object', properties: { ok: { const: false } } },
    ],
  });

  // Success: structuredContent plus a serialized TextContent.
  expect(r.ok.structuredContent).toEqual({
    customerId: 'cus_1',
    orders: [{ id: 'ord_1', status: 'paid' }],
  });
  expect(JSON.parse((r.ok.content as { text: string }[])[0]?.text ?? '')).toEqual(
    r.ok.structuredContent,
  );

  // { customerId: 42 } → a repairable envelope naming the field.
  expect(r.invalid.isError).toBe(true);
  expect(r.invalid.structuredContent).toMatchObject({
    ok: false,
    code: 'INVALID_INPUT',
    retryable: false,
    issues: [{ path: 'customerId', code: 'invalid_type' }],
  });

  expect(r.broken.isError).toBe(true);
  expect(r.thrower.isError).toBe(true);

  const client = (name: string) => byName(spans, `tools/call ${name}`, 2);
  const server = (name: string) => byName(spans, `tools/call ${name}`, 1);
  for (const name of ['get_order', 'broken', 'thrower', 'legacy_echo', 'no_such_tool']) {
    const clients = client(name);
    const servers = server(name);
    expect(servers.length, `server spans of ${name}`).toBe(name === 'get_order' ? 2 : 1);
    expect(clients.length, `client spans of ${name}`).toBe(servers.length);
    for (const [i, s] of servers.entries()) {
      const c = clients[i];
      // One trace: the agent's root span → client span → server span.
      expect(s.traceId).toBe(r.rootTraceId);
      expect(s.parentSpanId).toBe(c?.spanId);
      expect(s.attributes['mcp.method.name']).toBe('tools/call');
      expect(s.attributes['gen_ai.tool.name']).toBe(name);
      expect(typeof s.attributes['jsonrpc.request.id']).toBe('string');
      expect(s.attributes['jsonrpc.request.id']).toBe(c?.attributes['jsonrpc.request.id']);
      expect(typeof s.attributes['mcp.protocol.version']).toBe('string');
    }
  }
  const [okSpan, invalidSpan] = server('get_order');
  expect(okSpan?.statusCode).toBe(0);
  expect(okSpan?.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'toolscope.schema.version': '2',
    'toolscope.effect': 'read',
    'toolscope.attempt': 1,
    'toolscope.partial_effect': false,
    'toolscope.input.shape': 'customerId:string',
  });
  expect(invalidSpan?.statusCode).toBe(2);
  expect(invalidSpan?.attributes).toMatchObject({
    'error.type': 'tool_error',
    'toolscope.error.code': 'INVALID_INPUT',
    'toolscope.input.shape': 'customerId:number',
  });
  expect(String(invalidSpan?.attributes['toolscope.validation.issues'])).toContain('customerId');
  expect(client('get_order')[1]?.attributes).toMatchObject({
    'error.type': 'tool_error',
    'toolscope.error.code': 'INVALID_INPUT',
  });

  // A broken tool never shows as success.
  for (const name of ['broken', 'thrower']) {
    const s = server(name)[0];
    expect(s?.statusCode, name).toBe(2);
    expect(s?.attributes).toMatchObject({
      'error.type': 'tool_error',
      'toolscope.error.code': 'FAILED',
    });
  }
  expect(server('legacy_echo')[0]?.statusCode).toBe(0);
  expect(server('legacy_echo')[0]?.attributes['toolscope.schema.version']).toBe('unversioned');

  // An unknown tool is a protocol error with its JSON-RPC code.
  const unknown = server('no_such_tool')[0];
  expect(unknown?.statusCode).toBe(2);
  expect(unknown?.attributes).toMatchObject({
    'error.type': '-32602',
    'rpc.response.status_code': '-32602',
  });
  expect(unknown?.attributes['toolscope.error.code']).toBeUndefined();
}
