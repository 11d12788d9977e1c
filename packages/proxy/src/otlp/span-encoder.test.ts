// The proxy's own spans reach the collector as the OTel SDK's would: the same span made through the SDK with its
// OTLP/protobuf exporter and through the proxy's tracer and exporter arrive at one HTTP sink as the same bytes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createTraceState,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportQueue } from '../export-queue.js';
import { createLogger } from '../log.js';
import { createOtlpExporter } from './http-exporter.js';
import { ProtoWriter } from './proto-writer.js';
import { ProxySpan, type Scope } from './proxy-span.js';
import { ProxyTracerProvider } from './proxy-tracer.js';
import { otlpResource } from './resources.js';
import { readSdkEnv } from './sdk-env.js';
import { encodeSpan } from './span-encoder.js';

const bodies: Buffer[] = [];
const headers: Record<string, string | string[] | undefined>[] = [];
const sink = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    bodies.push(Buffer.concat(parts));
    headers.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end();
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => {
  sink.close();
});

const resource = { 'service.name': 'orders', 'service.version': '3.1.0' };
const parent = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: 1,
  isRemote: true,
  traceState: createTraceState('vendor=a1,other=b2'),
});

/** One span of every kind of field the proxy writes: typed attributes, an error status, an event. */
function fill(span: Span): void {
  span.setAttributes({
    'gen_ai.tool.name': 'get_order',
    'toolscope.proxy': true,
    'toolscope.attempt': 1,
    'toolscope.output.bytes': 70_000,
    'a.negative': -3,
    'a.double': 0.25,
    'a.list': ['x', 'y'],
    'a.unicode': 'ünïcødé ✓',
    'a.long': 'x'.repeat(300),
    'a.mixed': 'é'.repeat(60),
  });
  span.addEvent('retry', { 'toolscope.attempt': 2 }, [1_700_000_000, 500_000_000]);
  span.setStatus({ code: SpanStatusCode.ERROR, message: 'INVALID_OUTPUT' });
  span.end([1_700_000_000, 987_654_321]);
}

describe('the proxy span encoding', () => {
  it('sends the bytes the OTel SDK exporter sends for the same span', async () => {
    const log = createLogger('error', () => {});
    // The queue and the provider share the scope list, as telemetry.ts wires them.
    const scopes: Scope[] = [];
    const fixed = otlpResource(resource);
    const queue = new ExportQueue(
      createOtlpExporter(url, 5000, {}),
      { resource: () => fixed, scopes },
      log,
    );
    const ours = new ProxyTracerProvider(queue, readSdkEnv({}), scopes);
    const mine = ours
      .getTracer('@toolscope/proxy', '0.1.0')
      .startSpan(
        'tools/call get_order',
        { kind: SpanKind.SERVER, startTime: [1_700_000_000, 123_456_789] },
        parent,
      );
    expect(mine).toBeInstanceOf(ProxySpan);
    fill(mine);
    await queue.forceFlush(2000);

    const spanId = mine.spanContext().spanId;
    const sdk = new BasicTracerProvider({
      resource: resourceFromAttributes(resource),
      idGenerator: {
        generateTraceId: () => 'unused'.padEnd(32, '0'),
        generateSpanId: () => spanId,
      },
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    const theirs = sdk
      .getTracer('@toolscope/proxy', '0.1.0')
      .startSpan(
        'tools/call get_order',
        { kind: SpanKind.SERVER, startTime: [1_700_000_000, 123_456_789] },
        parent,
      );
    fill(theirs);
    await sdk.forceFlush();
    await sdk.shutdown();

    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.length).toBeGreaterThan(400);
    expect(bodies[0]?.toString('hex')).toBe(bodies[1]?.toString('hex'));
    expect(headers[0]?.['content-type']).toBe('application/x-protobuf');
  });

  it('honours the sampler variables: a sampled-out span records nothing and still has an id', () => {
    const ended: ProxySpan[] = [];
    const provider = new ProxyTracerProvider(
      { onEnd: (s) => ended.push(s) },
      readSdkEnv({ OTEL_TRACES_SAMPLER: 'always_off' }),
    );
    const span = provider.getTracer('t').startSpan('s');
    span.end();
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.spanContext().traceFlags).toBe(0);
    expect(ended).toHaveLength(0);
    // The default is parent-based: an unsampled client parent leaves the proxy span unrecorded too.
    const byParent = new ProxyTracerProvider({ onEnd: (s) => ended.push(s) }, readSdkEnv({}));
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 0,
      isRemote: true,
    });
    const child = byParent.getTracer('t').startSpan('s', {}, unsampled);
    child.end();
    expect(child.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(ended).toHaveLength(0);
    byParent.getTracer('t').startSpan('root').end();
    expect(ended).toHaveLength(1);
  });

  it('keeps the span limits the variables set: attributes beyond the count dropped and counted, values cut', () => {
    const ended: ProxySpan[] = [];
    const env = readSdkEnv({
      OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '2',
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '3',
    });
    const span = new ProxyTracerProvider({ onEnd: (s) => ended.push(s) }, env)
      .getTracer('t')
      .startSpan('s');
    span.setAttributes({ a: 'abcdef', b: ['xyzw', 'q'], c: true });
    span.setAttribute('a', 'again');
    span.end();
    expect(ended[0]?.attributes).toEqual({ a: 'aga', b: ['xyz', 'q'] });
    expect(ended[0]?.droppedAttributes).toBe(1);
  });

  it('keeps the attributes a call span starts with as setting them one by one would', () => {
    const ended: ProxySpan[] = [];
    const sink = { onEnd: (s: ProxySpan) => ended.push(s) };
    const start = (env: Record<string, string>, a: Record<string, string | boolean>) =>
      new ProxyTracerProvider(sink, readSdkEnv(env))
        .getTracer('t')
        .start('s', SpanKind.SERVER, a, undefined, undefined, true);
    const own = { a: 'abcdef', b: true };
    start({}, own).setAttribute('c', 'x').end();
    expect(ended[0]?.attributes).toEqual({ a: 'abcdef', b: true, c: 'x' });
    expect(ended[0]?.attributeCount).toBe(3);
    start(
      { OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '1', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '3' },
      {
        a: 'abcdef',
        b: true,
      },
    ).end();
    expect(ended[1]?.attributes).toEqual({ a: 'abc' });
    expect(ended[1]?.droppedAttributes).toBe(1);
  });

  it('encodes a span that starts with shared attributes as the same span given them one by one', () => {
    const ended: ProxySpan[] = [];
    const tracer = new ProxyTracerProvider(
      { onEnd: (s) => ended.push(s) },
      readSdkEnv({}),
    ).getTracer('t');
    const ref = tracer.reserve(undefined);
    const fixed = {
      'gen_ai.tool.name': 'get_order',
      'toolscope.proxy': true,
      'toolscope.attempt': 1,
    };
    const shared = tracer.share(fixed);
    expect(shared?.count).toBe(3);
    const open = (a: Record<string, string | boolean>, withShared: boolean) =>
      tracer.open(
        ref,
        's',
        SpanKind.SERVER,
        withShared ? a : { ...fixed, ...a },
        undefined,
        5n,
        true,
        withShared ? shared : undefined,
      );
    const bytes = (span: ProxySpan | undefined) => {
      const w = new ProtoWriter(64);
      if (span) encodeSpan(w, span);
      return w.copy().toString('hex');
    };
    for (const withShared of [true, false]) {
      const span = open(
        { 'jsonrpc.request.id': '7', 'toolscope.partial_effect': false },
        withShared,
      );
      span.setAttributes({ 'toolscope.output.bytes': 70, 'toolscope.partial_effect': true });
      span.end(1);
    }
    expect(ended[0]?.shared).toBe(shared);
    expect(ended[0]?.attributeCount).toBe(6);
    expect(bytes(ended[0])).toBe(bytes(ended[1]));
    // A shared attribute set again: the span's own from then on, still in its place, with its new value.
    for (const withShared of [true, false]) {
      const span = open({ 'jsonrpc.request.id': '8' }, withShared);
      span.setAttribute('toolscope.attempt', 2);
      span.end(1);
    }
    expect(ended[2]?.shared).toBeUndefined();
    expect(ended[2]?.attributes['toolscope.attempt']).toBe(2);
    expect(bytes(ended[2])).toBe(bytes(ended[3]));
    // Limits that would drop or cut one of them: nothing is shared.
    const limited = (env: Record<string, string>) =>
      new ProxyTracerProvider({ onEnd: () => {} }, readSdkEnv(env)).getTracer('t').share(fixed);
    expect(limited({ OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '2' })).toBeUndefined();
    expect(limited({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '3' })).toBeUndefined();
    expect(limited({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '9' })).toBeDefined();
  });
});
