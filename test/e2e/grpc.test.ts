// OTLP/gRPC into --grpc-port: the real OpenTelemetry gRPC exporter (plain and gzip) with the token as
// metadata, and a raw grpc-js client for every status the OTLP specification gives: UNAUTHENTICATED,
// INVALID_ARGUMENT, partial success, RESOURCE_EXHAUSTED with RetryInfo when the queue is full, UNAVAILABLE
// with RetryInfo when storage fails. Acknowledged means committed, as over HTTP.
import * as grpc from '@grpc/grpc-js';
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, openStorage, type Storage, startCollector } from '@toolscope/collector';
import { afterAll, describe, expect, it } from 'vitest';
import { TRACE_SERVICE } from '../../packages/collector/src/api/grpc-receiver.js';
import {
  ExportTraceServiceRequest,
  ExportTraceServiceResponse,
  RetryInfo,
  RpcStatus,
} from '../../packages/collector/src/otlp/proto.js';

const TOKEN = 'grpc-test-token-123456';
const EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const started: Collector[] = [];
afterAll(async () => {
  for (const c of started) await c.close();
});

async function collectorWith(options: { storage?: Storage; maxPendingSpans?: number } = {}) {
  const c = await startCollector({
    db: ':memory:',
    port: 0,
    grpcPort: 0,
    token: TOKEN,
    ...options,
  });
  started.push(c);
  return c;
}

const raw = (b: Buffer) => b;
const Client = grpc.makeGenericClientConstructor(TRACE_SERVICE, 'TraceService');

type Answer = { error: grpc.ServiceError | null; body?: Buffer };
function exportRaw(port: number, body: Buffer, token: string | null = TOKEN): Promise<Answer> {
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    client.makeUnaryRequest(EXPORT, raw, raw, body, metadata, (error, response) => {
      client.close();
      resolve({ error, ...(response ? { body: response } : {}) });
    });
  });
}

let nextTrace = 1;
function request(tool: string, spans = 1, badIds = 0): Buffer {
  const traceId = Buffer.alloc(16);
  traceId.writeUInt32BE(nextTrace++, 12);
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = (i: number, bad: boolean) => ({
    traceId: bad ? Buffer.alloc(16) : traceId,
    spanId: Buffer.from([0, 0, 0, 0, 0, 0, 0, i + 1]),
    name: `execute_tool ${tool}`,
    kind: 1,
    startTimeUnixNano: now.toString(),
    endTimeUnixNano: (now + 1_000_000n).toString(),
    attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: tool } }],
  });
  const all = [
    ...Array.from({ length: spans }, (_, i) => span(i, false)),
    ...Array.from({ length: badIds }, (_, i) => span(spans + i, true)),
  ];
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: all }] }],
  });
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish());
}

/** The RetryInfo delay, in seconds, of a refusal's grpc-status-details-bin. */
function retryDelay(error: grpc.ServiceError | null): number | undefined {
  const bin = error?.metadata.get('grpc-status-details-bin')[0];
  if (!Buffer.isBuffer(bin)) return undefined;
  const status = RpcStatus.toObject(RpcStatus.decode(bin), { longs: Number }) as {
    details?: { typeUrl: string; value: Uint8Array }[];
  };
  const info = status.details?.find((d) => d.typeUrl.endsWith('google.rpc.RetryInfo'));
  if (!info) return undefined;
  const decoded = RetryInfo.toObject(RetryInfo.decode(info.value), { longs: Number }) as {
    retryDelay?: { seconds?: number };
  };
  return decoded.retryDelay?.seconds;
}

async function toolCalls(c: Collector, tool: string): Promise<number> {
  const res = await fetch(`${c.url}/api/tools?tool=${tool}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = (await res.json()) as { tools: { calls: number }[] };
  return body.tools[0]?.calls ?? 0;
}

describe('OTLP/gRPC receiver', () => {
  it('takes spans from the OpenTelemetry gRPC exporter, plain and gzip, with the token as metadata', async () => {
    const c = await collectorWith();
    expect(c.grpcPort).toBeGreaterThan(0);
    for (const [tool, compression] of [
      ['grpc_plain', CompressionAlgorithm.NONE],
      ['grpc_gzip', CompressionAlgorithm.GZIP],
    ] as const) {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${TOKEN}`);
      const provider = new BasicTracerProvider({
        spanProcessors: [
          new SimpleSpanProcessor(
            new OTLPTraceExporter({ url: `http://127.0.0.1:${c.grpcPort}`, metadata, compression }),
          ),
        ],
      });
      const tracer = provider.getTracer('grpc-test');
      for (let i = 0; i < 3; i++)
        tracer
          .startSpan(`execute_tool ${tool}`, {
            kind: SpanKind.INTERNAL,
            attributes: { 'gen_ai.tool.name': tool },
          })
          .end();
      await provider.forceFlush();
      await provider.shutdown();
      // The exporter's flush resolved: the collector acknowledged, so the calls are committed.
      expect(await toolCalls(c, tool)).toBe(3);
    }
  });

  it('answers UNAUTHENTICATED, INVALID_ARGUMENT and partial success as the specification says', async () => {
    const c = await collectorWith();
    const port = c.grpcPort as number;
    expect((await exportRaw(port, request('no_token'), null)).error?.code).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    expect((await exportRaw(port, request('bad_token'), 'wrong-token-000')).error?.code).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    expect(await toolCalls(c, 'no_token')).toBe(0);
    const garbage = await exportRaw(port, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]));
    expect(garbage.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const partial = await exportRaw(port, request('partly_valid', 2, 1));
    expect(partial.error).toBeNull();
    const response = ExportTraceServiceResponse.toObject(
      ExportTraceServiceResponse.decode(partial.body ?? Buffer.alloc(0)),
      { longs: Number },
    ) as { partialSuccess?: { rejectedSpans?: number; errorMessage?: string } };
    expect(response.partialSuccess?.rejectedSpans).toBe(1);
    expect(response.partialSuccess?.errorMessage).toMatch(/trace_id/);
    expect(await toolCalls(c, 'partly_valid')).toBe(2);
  });

  it('answers RESOURCE_EXHAUSTED with RetryInfo when the queue is full, UNAVAILABLE when storage fails', async () => {
    const store = await openStorage(':memory:');
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow: Storage = { ...store, write: async (spans) => gate.then(() => store.write(spans)) };
    const c = await collectorWith({ storage: slow, maxPendingSpans: 1 });
    const port = c.grpcPort as number;
    // Writes wait on the gate: requests fill the queue until one is refused (two writes may be in flight).
    const waiting: Promise<Answer>[] = [];
    let refused: Answer | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = exportRaw(port, request('queued'));
      const early = await Promise.race([answer, new Promise<undefined>((r) => setTimeout(r, 300))]);
      if (early?.error) refused = early;
      else waiting.push(answer);
    }
    expect(refused?.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(retryDelay(refused?.error ?? null)).toBeGreaterThanOrEqual(1);
    open();
    for (const a of await Promise.all(waiting)) expect(a.error).toBeNull();
    expect(await toolCalls(c, 'queued')).toBe(waiting.length);
    await store.close();

    const broken = await openStorage(':memory:');
    const failing: Storage = {
      ...broken,
      write: async () => {
        throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      },
    };
    const d = await collectorWith({ storage: failing });
    const answer = await exportRaw(d.grpcPort as number, request('lost'));
    expect(answer.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(retryDelay(answer.error)).toBeGreaterThanOrEqual(1);
    await broken.close();
  });
});
