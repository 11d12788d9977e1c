// Both receivers let a request's body go once it is decoded, before they wait for its commit. Held until the
// answer (fastify's request keeps its body, a handler's variables live across its await), every body outlived the
// HTTP thread's young generation under bench:ingest and stayed, dead, until a full collection: the memory limit
// was met on garbage and a third of the requests refused (docs/decisions/0073-bodies-let-go-before-the-commit.md).
// Here the commits are held: eight 4 MiB requests wait at once on each protocol (protobuf, gzipped, and JSON on
// HTTP), and after a full collection the thread's array buffers hold none of the 32 MiB of bodies, nor does the
// in-flight budget count them. Their spans
// carry one long, repetitive attribute, so what the queue keeps of them (packed, compressed) is a small fraction.
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { TRACE_EXPORT_PATH } from '../src/api/grpc-receiver.js';
import { openStorage } from '../src/index.js';
import { forcedGc } from '../src/ingest/forced-gc.js';
import { WriteQueue } from '../src/ingest/write-queue.js';
import { ExportTraceServiceRequest } from '../src/otlp/proto.js';
import { queueStages } from '../src/queue-stages.js';
import type { Storage } from '../src/storage/contract.js';
import { startReceivers } from './receivers.js';

const MiB = 1024 * 1024;
const REQUESTS = 8;
const SPANS = 64;
const FILLER = 'x'.repeat(64 * 1024);

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** One OTLP request of SPANS spans, each with a 64 KiB attribute: about 4 MiB of protobuf or of JSON. */
function request(n: number, encoding: 'protobuf' | 'json'): Buffer {
  const id = (bytes: number, seed: number) => Buffer.alloc(bytes, seed + 1);
  const start = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: SPANS }, (_, i) => ({
    traceId: id(16, n),
    spanId: Buffer.concat([id(4, n), Buffer.from(Uint32Array.of(i + 1).buffer)]),
    name: 'work',
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 1_000_000n),
    attributes: [{ key: 'filler', value: { stringValue: FILLER } }],
  }));
  if (encoding === 'json') {
    // OTLP/JSON: ids as hex strings.
    const hex = spans.map((span) => ({
      ...span,
      traceId: span.traceId.toString('hex'),
      spanId: span.spanId.toString('hex'),
    }));
    return Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: hex }] }] }));
  }
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ scopeSpans: [{ spans }] }],
  });
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish());
}

/** A collector whose writes wait until `release()`: requests stay in flight, waiting for their commit. */
async function heldCollector() {
  const storage = await openStorage(':memory:');
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const gated: Pick<Storage, 'write'> = {
    write: async (batch) => {
      await held;
      return storage.write(batch);
    },
  };
  const queue = new WriteQueue(gated, {
    stages: queueStages(storage),
    maxPendingSpans: 100_000,
    maxBatchSpans: 8192,
  });
  const receivers = await startReceivers({ storage, queue, budgetBytes: 256 * MiB });
  closers.push(async () => {
    release();
    await receivers.close();
    await queue.close();
    await storage.close();
  });
  return {
    url: receivers.url,
    grpcPort: receivers.grpcPort,
    queue,
    release,
    budget: receivers.budget,
  };
}

/** Waits until `count` spans are queued, for as long as more keep arriving. */
async function queued(queue: WriteQueue, count: number): Promise<void> {
  let last = -1;
  let idleTurns = 0;
  while (queue.pendingSpans < count) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    idleTurns = queue.pendingSpans === last ? idleTurns + 1 : 0;
    last = queue.pendingSpans;
    if (idleTurns > 500) throw new Error(`stuck at ${last} of ${count} spans queued`);
  }
}

/** This thread's array buffers after full collections, with finalizers given their turns. */
async function buffersAfterGc(): Promise<number> {
  const gc = forcedGc();
  if (!gc) throw new Error('no forced collection: the test cannot measure');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().arrayBuffers;
}

/**
 * The load, on a thread of its own so that the client's copies of the bodies are not this thread's array
 * buffers: every body sent at once, gzipped when asked, over OTLP/HTTP (fetch) or OTLP/gRPC (one node:http2
 * stream each), answered with the statuses once all are back.
 */
const SENDER = `
const { workerData, parentPort } = require('node:worker_threads');
const http2 = require('node:http2');
const zlib = require('node:zlib');
const { url, grpcPort, path, type, gzip } = workerData;
const bodies = workerData.bodies.map((b) => (gzip ? zlib.gzipSync(b) : Buffer.from(b)));
function grpcCall(session, body) {
  return new Promise((resolve) => {
    const stream = session.request({
      ':method': 'POST', ':path': path, 'content-type': 'application/grpc',
      ...(gzip ? { 'grpc-encoding': 'gzip' } : {}),
    });
    let status = 'none';
    stream.on('trailers', (t) => { status = String(t['grpc-status']); });
    stream.on('response', (h) => { if (h['grpc-status'] !== undefined) status = String(h['grpc-status']); });
    stream.on('close', () => resolve(status));
    stream.on('error', () => undefined);
    stream.resume();
    const prefix = Buffer.alloc(5);
    prefix.writeUInt8(gzip ? 1 : 0, 0);
    prefix.writeUInt32BE(body.length, 1);
    stream.end(Buffer.concat([prefix, body]));
  });
}
async function main() {
  if (url) {
    const answers = await Promise.all(bodies.map((body) => fetch(url + '/v1/traces', {
      method: 'POST',
      headers: { 'content-type': type, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
      body,
    }).then((r) => String(r.status))));
    parentPort.postMessage(answers);
    return;
  }
  const session = http2.connect('http://127.0.0.1:' + grpcPort);
  session.on('error', () => undefined);
  const answers = await Promise.all(bodies.map((body) => grpcCall(session, body)));
  session.close();
  parentPort.postMessage(answers);
}
main();
`;

type Case = { protocol: 'http' | 'grpc'; encoding: 'protobuf' | 'json'; gzip: boolean };

function send(
  target: { url: string } | { grpcPort: number },
  c: Case,
  bodies: Buffer[],
): Promise<string[]> {
  const type = c.encoding === 'json' ? 'application/json' : 'application/x-protobuf';
  const worker = new Worker(SENDER, {
    eval: true,
    workerData: { bodies, path: TRACE_EXPORT_PATH, type, gzip: c.gzip, ...target },
  });
  // A test that failed before the answers came leaves no thread behind.
  closers.push(() => worker.terminate());
  return new Promise((resolve, reject) => {
    worker.once('message', (answers: string[]) => {
      resolve(answers);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const CASES: Case[] = [
  { protocol: 'http', encoding: 'protobuf', gzip: false },
  { protocol: 'http', encoding: 'protobuf', gzip: true },
  { protocol: 'http', encoding: 'json', gzip: false },
  { protocol: 'grpc', encoding: 'protobuf', gzip: false },
  { protocol: 'grpc', encoding: 'protobuf', gzip: true },
];

describe('bodies let go before the commit', () => {
  it.each(CASES)(
    '$protocol $encoding (gzip $gzip): eight 4 MiB requests waiting for their commit hold none of their bodies',
    async (c) => {
      const bodies = Array.from({ length: REQUESTS }, (_, n) => request(n, c.encoding));
      const bodyBytes = bodies.reduce((sum, b) => sum + b.length, 0);
      expect(bodyBytes).toBeGreaterThan(30 * MiB);
      const collector = await heldCollector();
      const before = await buffersAfterGc();
      const target =
        c.protocol === 'http' ? { url: collector.url } : { grpcPort: collector.grpcPort };
      const answers = send(target, c, bodies);
      await queued(collector.queue, REQUESTS * SPANS);
      const held = (await buffersAfterGc()) - before;
      // Nor are they counted in flight while they wait (--max-inflight-mb): only bodies being read or decoded are.
      expect(collector.budget.stats.usedBytes).toBe(0);
      collector.release();
      expect(await answers).toEqual(bodies.map(() => (c.protocol === 'http' ? '200' : '0')));
      // Measured: 2.0 MiB (HTTP) and 0.05 MiB (gRPC) with the bodies let go, against 32–34 MiB when each request
      // kept its body until it was answered, 128 MiB gzipped (an inflated body is a view of a buffer the size of
      // the body limit, 16 MiB here). Under one body: a request, or a cache of the last one, keeping a
      // body (or its inflated form) would show.
      expect(held).toBeLessThan(bodyBytes / REQUESTS);
    },
  );
});
