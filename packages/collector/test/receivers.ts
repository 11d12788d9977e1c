// Both OTLP receivers in the test's own process, over a queue the test builds (a real storage, or one whose
// writes the test holds), with a memory limiter when the test gives one: for tests that watch the receivers'
// rules from inside rather than through a `toolscope serve` process.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/api/app.js';
import { startGrpcReceiver } from '../src/api/grpc-receiver.js';
import { BodyBudget } from '../src/ingest/body-budget.js';
import { defaultContentPolicy } from '../src/ingest/content-policy.js';
import type { MemoryLimiter } from '../src/ingest/memory-limiter.js';
import type { WriteQueue } from '../src/ingest/write-queue.js';
import { CollectorMetrics } from '../src/ops/metrics.js';
import type { Storage } from '../src/storage/contract.js';

const MiB = 1024 * 1024;

export type Receivers = {
  url: string;
  grpcPort: number;
  app: FastifyInstance;
  metrics: CollectorMetrics;
  /** The request bodies both receivers hold (--max-inflight-mb). */
  budget: BodyBudget;
  /** Stops both receivers (not the queue or the storage, which are the test's). */
  close: () => Promise<void>;
};

export async function startReceivers(o: {
  storage: Storage;
  queue: WriteQueue;
  memory?: MemoryLimiter;
  budgetBytes: number;
}): Promise<Receivers> {
  const metrics = new CollectorMetrics();
  if (o.memory) metrics.observeMemory(o.memory);
  const budget = new BodyBudget(o.budgetBytes);
  const app = await buildApp({
    storage: o.storage,
    queue: o.queue,
    metrics,
    ...(o.memory ? { memory: o.memory } : {}),
    bodyBudget: budget,
    maxBodyBytes: 16 * MiB,
    version: 'test',
  });
  const url = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', 'localhost');
  const grpcReceiver = await startGrpcReceiver({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 16 * MiB,
    budget,
    memory: o.memory,
    retryAfterSeconds: 1,
    token: undefined,
    queue: o.queue,
    metrics,
    content: defaultContentPolicy(),
  });
  return {
    url,
    grpcPort: grpcReceiver.port,
    app,
    metrics,
    budget,
    close: async () => {
      await grpcReceiver.close();
      await app.close();
    },
  };
}
