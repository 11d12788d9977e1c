// The collector's secret rules on spans as decoded at intake (docs/redaction.md): the instrument package's own
// spans come through byte for byte when they hold no secret (contracts whose schemas name a password field,
// shapes, hashes, session ids, token counts), and any span's secrets are masked wherever they sit: attributes
// by name or by value, event and link attributes, the resource, the status message. The corpus through every
// producer is test/e2e/secrets-paths.test.ts.
import { SpanStatusCode } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { defineTool, sensitive } from '@toolscope/instrument';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyContentPolicy, defaultContentPolicy } from '../src/ingest/content-policy.js';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { NormalizedSpan } from '../src/otlp/model.js';

function decoded(spans: ReadableSpan[]): NormalizedSpan[] {
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error('nothing serialized');
  const result = decodeProtobuf(body);
  if (!result.ok) throw new Error(result.message);
  return result.batch.spans;
}

const copy = (spans: NormalizedSpan[]) =>
  spans.map((s) => ({
    ...s,
    attributes: structuredClone(s.attributes),
    events: structuredClone(s.events),
  }));

function provider() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'orders',
      'process.command_args': ['node', 'server.js', '--db-password=hunter2-resource'],
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, tracerProvider };
}

describe('the collector masks secrets in every span it stores', () => {
  it('keeps the instrument package’s own spans as they are when they hold no secret', async () => {
    const { exporter, tracerProvider } = provider();
    const login = defineTool({
      name: 'login',
      version: '2',
      effect: 'write',
      description: 'Signs a user in; the password field is masked',
      input: z.object({
        user: z.string(),
        password: sensitive(z.string()),
        sessionCount: z.number(),
      }),
      output: z.object({ sessionId: z.string(), tokenCount: z.number() }),
      execute: ({ user }) => {
        if (user === 'down')
          throw new Error('ledger offline at 10:30:00, session expired (code=503)');
        return { sessionId: 's-1', tokenCount: 3 };
      },
      tracerProvider,
      capture: true,
      hashKey: 'scrub-test',
    });
    await login.call(
      { user: 'jane', password: 'pw-secret-1', sessionCount: 2 },
      { conversationId: 'c-1' },
    );
    await login.call({ user: 7 }, { callId: 'call-2' });
    await login.call({ user: 'down', password: 'pw-secret-1', sessionCount: 0 });
    const spans = decoded(exporter.getFinishedSpans()).map((s) => ({
      ...s,
      resource: { 'service.name': 'orders' },
    }));
    expect(spans.some((s) => s.name.startsWith('tool_contract'))).toBe(true);
    const before = copy(spans);
    for (const span of spans) applyContentPolicy(span, defaultContentPolicy());
    expect(spans.map((s) => s.attributes)).toEqual(before.map((s) => s.attributes));
    expect(spans.map((s) => s.events)).toEqual(before.map((s) => s.events));
    const messages = before.flatMap((s) => s.events.map((e) => e.attributes['exception.message']));
    expect(messages).toContain('ledger offline at 10:30:00, session expired (code=503)');
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('pw-secret-1');
  });

  it('masks by attribute name and by value, in events, links, the resource and the status', () => {
    const { exporter, tracerProvider } = provider();
    const tracer = tracerProvider.getTracer('other-producer');
    const span = tracer.startSpan('POST /charge', {
      attributes: {
        'http.request.header.authorization': ['Bearer opaque-header-value'],
        'http.request.header.x-api-key': ['opaque-api-key-value'],
        'db.connection_string': 'Server=db;User=sa',
        'gen_ai.prompt.0.content':
          'my card is 4111 1111 1111 1111 and key sk_live_4eC39HqLyjWDarjtT1zdp7dc',
        'mcp.session.id': 'b7f9c2d4-session',
        'session.id': 'conversation-42',
        'ai.telemetry.metadata.sessionId': 'conversation-43',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.tool.name': 'forged',
        'toolscope.attempt': 1,
        'gen_ai.tool.call.arguments': '{"password":"opaque-forged-value","city":"Lisbon"}',
      },
      links: [
        {
          context: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 },
          attributes: { note: 'token=opaque-link-token' },
        },
      ],
    });
    span.addEvent('log', { message: 'retrying with password=opaque-event-value' });
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: 'refused ghp_0123456789abcdefghijABCDEFGHIJ012345',
    });
    span.end();
    const [stored] = decoded(exporter.getFinishedSpans());
    if (!stored) throw new Error('no span');
    applyContentPolicy(stored, defaultContentPolicy());
    const text = JSON.stringify(stored, (_, v) => (typeof v === 'bigint' ? String(v) : v));
    for (const secret of [
      'opaque-header-value',
      'opaque-api-key-value',
      'User=sa',
      '4111 1111 1111 1111',
      'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      'opaque-forged-value',
      'opaque-link-token',
      'opaque-event-value',
      'ghp_0123456789abcdefghijABCDEFGHIJ012345',
      'hunter2-resource',
    ])
      expect(text, secret).not.toContain(secret);
    expect(stored.attributes).toMatchObject({
      'http.request.header.authorization': '[REDACTED]',
      'mcp.session.id': 'b7f9c2d4-session',
      'session.id': 'conversation-42',
      'ai.telemetry.metadata.sessionId': 'conversation-43',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.tool.call.arguments': '{"password":"[REDACTED]","city":"Lisbon"}',
    });
    expect(stored.statusMessage).toBe('refused [REDACTED:api_key]');
  });

  it('scans a value once per batch, still masks it under a secret name, and masks every repeat of a secret', () => {
    const { exporter, tracerProvider } = provider();
    const tracer = tracerProvider.getTracer('other-producer');
    for (const [name, attributes] of [
      ['first', { note: 'opaque-shared-value', cmd: 'login password=opaque-repeat' }],
      ['second', { 'service.api_key': 'opaque-shared-value', cmd: 'login password=opaque-repeat' }],
      ['third', { note: 'opaque-shared-value', 'db.password': 'opaque-named-first' }],
      ['fourth', { note: 'opaque-named-first' }],
    ] as const)
      tracer.startSpan(name, { attributes }).end();
    const spans = decoded(exporter.getFinishedSpans());
    const clean = new Set<string>();
    for (const span of spans) applyContentPolicy(span, defaultContentPolicy(), clean);
    expect(spans.map((s) => s.attributes)).toEqual([
      { note: 'opaque-shared-value', cmd: 'login password=[REDACTED:secret]' },
      { 'service.api_key': '[REDACTED]', cmd: 'login password=[REDACTED:secret]' },
      { note: 'opaque-shared-value', 'db.password': '[REDACTED]' },
      // Redacted under a secret name, a value is not remembered as clean: under an ordinary key it is scanned.
      { note: 'opaque-named-first' },
    ]);
    // What the batch remembers holds no secret: the clean value, never one the rules changed.
    expect(clean.has('opaque-shared-value')).toBe(true);
    expect(clean.has('opaque-named-first')).toBe(true);
    expect([...clean].some((v) => v.includes('opaque-repeat'))).toBe(false);
  });
});
