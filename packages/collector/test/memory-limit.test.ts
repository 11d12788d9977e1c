// Past the soft memory limit both receivers refuse before reading, with the retry hint their exporters take: the
// real OTLP/HTTP exporter gets 429 with Retry-After, backs off and is stored once memory is back under; a grpc-js
// call gets RESOURCE_EXHAUSTED with RetryInfo; /metrics counts each refusal. The resident set is the one thing
// not real here: the limiter reads a value the test sets, so the refusals do not depend on the machine's memory
// (flood.test.ts floods a real process).
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { exportGrpc, FloodBatches, grpcClients } from '../bench/flood-load.js';
import { openStorage } from '../src/index.js';
import { MemoryLimiter } from '../src/ingest/memory-limiter.js';
import { WriteQueue } from '../src/ingest/write-queue.js';
import { RetryInfo, RpcStatus } from '../src/otlp/proto.js';
import { queueStages } from '../src/queue-stages.js';
import { exportingProvider } from './harness.js';
import { startReceivers } from './receivers.js';

const MiB = 1024 * 1024;
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function limitedCollector() {
  const memory = { rss: 10 * MiB };
  const storage = await openStorage(':memory:');
  const queue = new WriteQueue(storage, {
    stages: queueStages(storage),
    maxPendingSpans: 100_000,
    maxBatchSpans: 8192,
  });
  const limiter = new MemoryLimiter({
    limitBytes: 100 * MiB,
    // Never idle: the test's lone requests would otherwise be let through whatever the reading.
    idle: () => false,
    readRss: () => memory.rss,
  });
  const receivers = await startReceivers({
    storage,
    queue,
    memory: limiter,
    budgetBytes: 64 * MiB,
  });
  closers.push(async () => {
    await receivers.close();
    await queue.close();
    await storage.close();
  });
  // Readings are taken at most every 10 ms on admission: a new value shows after that.
  const setRss = async (bytes: number) => {
    memory.rss = bytes;
    await new Promise((resolve) => setTimeout(resolve, 15));
  };
  return { url: receivers.url, grpcPort: receivers.grpcPort, setRss };
}

describe('receivers past the soft memory limit', () => {
  it('answer 429 with Retry-After that the OTLP/HTTP exporter honours, and store its spans once under', async () => {
    const c = await limitedCollector();
    await c.setRss(90 * MiB); // over the soft limit of 80
    const refused = await fetch(`${c.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new FloodBatches(1).next(),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const status = RpcStatus.decode(new Uint8Array(await refused.arrayBuffer())) as unknown as {
      code: number;
    };
    expect(status.code).toBe(grpc.status.RESOURCE_EXHAUSTED);

    // The real exporter: refused first, it waits as Retry-After says and sends again.
    const { provider } = exportingProvider(c.url, 'proto');
    provider
      .getTracer('t')
      .startSpan('execute_tool get_order', { attributes: { 'gen_ai.tool.name': 'get_order' } })
      .end();
    const flushed = provider.forceFlush();
    const firstRefusal = async () => {
      for (;;) {
        const text = await (await fetch(`${c.url}/metrics`)).text();
        if (/reason="memory_limit"} [2-9]/.test(text)) return text;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const metrics = await firstRefusal();
    expect(metrics).toContain('toolscope_memory_limited 1');
    expect(metrics).toContain(`toolscope_memory_limit_bytes ${100 * MiB}`);
    expect(metrics).toContain(`toolscope_memory_soft_limit_bytes ${80 * MiB}`);
    expect(metrics).toContain(`toolscope_memory_resident_bytes `);
    await c.setRss(50 * MiB);
    await flushed;
    await provider.shutdown();
    const calls = (await (await fetch(`${c.url}/api/calls?tool=get_order`)).json()) as {
      calls: unknown[];
    };
    expect(calls.calls).toHaveLength(1);
  });

  it('answer RESOURCE_EXHAUSTED with RetryInfo over gRPC before reading the message, and OK once under', async () => {
    const c = await limitedCollector();
    await c.setRss(90 * MiB);
    const [client] = grpcClients(c.grpcPort, 1);
    closers.push(async () => client?.close());
    const metadata = new grpc.Metadata();
    const body = new FloodBatches(1).next();
    const details = await new Promise<grpc.ServiceError | null>((resolve) =>
      (client as grpc.Client).makeUnaryRequest(
        '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        (b: Buffer) => b,
        (b: Buffer) => b,
        body,
        metadata,
        (error) => resolve(error),
      ),
    );
    expect(details?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const bin = details?.metadata.get('grpc-status-details-bin')[0] as Buffer;
    const rpc = RpcStatus.toObject(RpcStatus.decode(bin)) as {
      details: { typeUrl: string; value: Uint8Array }[];
    };
    const info = rpc.details.find((d) => d.typeUrl.endsWith('google.rpc.RetryInfo'));
    const delay = RetryInfo.toObject(RetryInfo.decode(info?.value as Uint8Array), {
      longs: Number,
    }) as { retryDelay?: { seconds?: number } };
    expect(delay.retryDelay?.seconds).toBeGreaterThanOrEqual(1);
    await c.setRss(50 * MiB);
    expect((await exportGrpc(client as grpc.Client, body, metadata)).code).toBe('OK');
    const text = await (await fetch(`${c.url}/metrics`)).text();
    expect(text).toContain(
      'toolscope_ingest_requests_refused_total{protocol="grpc",reason="memory_limit"} 1',
    );
  });
});
