// A running collector: storage, the single writer, retention and the HTTP app, with an orderly shutdown that
// commits everything already acknowledged.
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { startWebhook } from './alerts/webhook.js';
import { buildApp } from './api/app.js';
import { tokenCheck } from './api/auth.js';
import { startGrpcReceiver } from './api/grpc-receiver.js';
import type { LoopThresholds } from './detection/index.js';
import { encodeThresholds, resolveThresholds } from './detection/read-thresholds.js';
import type { DriftThresholds } from './detectors/drift.js';
import { CollectorError } from './errors.js';
import { BodyBudget } from './ingest/body-budget.js';
import { createContentPolicy, randomHashKey } from './ingest/content-policy.js';
import { ingestBounds, startMemoryLimiter } from './ingest/memory-limit.js';
import { startRetention } from './ingest/retention.js';
import { WriteQueue } from './ingest/write-queue.js';
import { causeOf, createLogger, type LogLevel, onceEach } from './ops/logger.js';
import { CollectorMetrics } from './ops/metrics.js';
import { openStorage } from './pipeline.js';
import { queueStages } from './queue-stages.js';
import type { Storage } from './storage/contract.js';
import { COLLECTOR_VERSION } from './version.js';

export type CollectorOptions = {
  /** SQLite file (`:memory:` for a throwaway store) or a `postgres://` URL. */
  db: string;
  /** Most PostgreSQL connections of this process (default 10). */
  poolSize?: number;
  host?: string;
  port?: number;
  token?: string | undefined;
  /** Delete data older than this many milliseconds. */
  retentionMs?: number | undefined;
  maxBodyBytes?: number;
  /**
   * Ingest bodies held in memory at once (as received plus inflated), beyond which ingest answers 429 (default
   * 64 MiB, less under a small memory limit: ingest/memory-limit.ts).
   */
  maxInflightBytes?: number | undefined;
  /**
   * Resident set the process should stay within, in bytes: past nine tenths of it ingest answers 429 /
   * RESOURCE_EXHAUSTED (docs/reliability.md). No limit when absent (`serve` passes its default, 200 MiB).
   */
  memoryLimitBytes?: number | undefined;
  /** Spans accepted but not yet committed, beyond which ingest answers 429 (default 200,000, or fewer, as above). */
  maxPendingSpans?: number | undefined;
  /** Most spans committed in one transaction (default the store's `writeSpans`, else 8,192). */
  maxBatchSpans?: number;
  synchronous?: 'NORMAL' | 'FULL';
  /** JSON log lines on stdout at this level (`serve` uses info); without it, nothing is logged. */
  logLevel?: LogLevel;
  /** Where the JSON log lines go (default stdout); `serve` holds them until its lines for people are out. */
  logDestination?: DestinationStream;
  /** @deprecated use logLevel; true logs at info. */
  logger?: boolean;
  /** POST each new flag once to this URL. */
  alertWebhook?: string | undefined;
  /** Retry-loop detector thresholds. */
  thresholds?: Partial<LoopThresholds>;
  /** Drift detector thresholds (rollout grace of version_skew, minimum failures and traces). */
  drift?: Partial<DriftThresholds>;
  /**
   * A ready storage instead of opening `db` (other backends, tests). A PostgreSQL store merges its appended
   * rollup rows only when opened with `mergeRollups: true`, as the collector opens its own.
   */
  storage?: Storage;
  /** OTLP/gRPC port (0: a free port the system picks); no gRPC receiver when absent. */
  grpcPort?: number | undefined;
  /** The deployment's hash key, for input hashes of foreign tool spans (TOOLSCOPE_HASH_KEY). */
  hashKey?: string | undefined;
  /** Keep foreign tool spans' arguments and results, redacted (default: drop them). */
  captureContent?: boolean;
  /** PostgreSQL: start while the database is unreachable and connect with backoff (default true). */
  waitForDatabase?: boolean;
  /** PostgreSQL: bound of one statement, lock waits included, in ms (default 10 s). */
  statementTimeoutMs?: number;
};

export type Collector = {
  app: FastifyInstance;
  storage: Storage;
  queue: WriteQueue;
  /** Request bodies held in memory right now, and the most at once. */
  bodyBudget: BodyBudget;
  metrics: CollectorMetrics;
  /** Base URL once listening, e.g. http://127.0.0.1:4318 */
  url: string;
  /** The OTLP/gRPC port once listening, when one was asked for. */
  grpcPort: number | undefined;
  close(): Promise<void>;
};

/** Logged when no hash key is configured (`serve` passes a random one and logs this after its startup lines). */
export const NO_HASH_KEY_WARNING =
  'no hash key (--hash-key or TOOLSCOPE_HASH_KEY): input hashes of foreign tool spans use a key of this ' +
  'process, so they match neither other collectors nor the instrumented processes';

export async function startCollector(options: CollectorOptions): Promise<Collector> {
  const log = createLogger(
    options.logLevel ?? (options.logger ? 'info' : 'silent'),
    options.logDestination,
  );
  const storage =
    options.storage ??
    (await openStorage(options.db, {
      // PostgreSQL logs an outage once and its end once (pg-health.ts); it may start before the database.
      log,
      waitForDatabase: options.waitForDatabase ?? true,
      // A serving collector merges the appended rollup rows, every collector's (pg-rollup-merge.ts).
      mergeRollups: true,
      ...(options.statementTimeoutMs ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
      onDamage: onceEach((what) => log.error({ damage: what }, 'stored data could not be read')),
      ...(options.memoryLimitBytes ? { memoryLimitBytes: options.memoryLimitBytes } : {}),
      ...(options.poolSize ? { poolSize: options.poolSize } : {}),
      ...(options.synchronous ? { synchronous: options.synchronous } : {}),
      ...(options.thresholds ? { thresholds: options.thresholds } : {}),
      readSettings: encodeThresholds(resolveThresholds(options.drift)),
      // `report --db` on this store then reads with the same thresholds (read-thresholds.ts).
      rememberReadSettings: true,
    }));
  const metrics = new CollectorMetrics();
  const bounds = ingestBounds(options.memoryLimitBytes, storage.pendingSpansPerMiB);
  let lastWriteFailed: string | undefined;
  const queue = new WriteQueue(storage, {
    // The process stage, run on each request's spans as it is queued, each batch sealed while it waits.
    stages: queueStages(storage),
    maxPendingSpans: options.maxPendingSpans ?? bounds.pendingSpans,
    maxBatchSpans: options.maxBatchSpans ?? storage.writeSpans ?? 8192,
    maxInFlight: storage.concurrentWrites,
    fillFirst: storage.fillsWritesFirst === true,
    observer: {
      committed: (outcome, seconds) => {
        if (lastWriteFailed) log.info('storage writes again');
        lastWriteFailed = undefined;
        metrics.batches.inc({ result: 'committed' });
        metrics.spansStored.inc(outcome.inserted);
        metrics.spansDuplicate.inc(outcome.duplicates);
        metrics.writeSeconds.observe(seconds);
      },
      failed: (error, spans, requests) => {
        metrics.batches.inc({ result: 'failed' });
        // An unavailable store logged the outage itself, once: its refused batches are not logged again.
        if (error instanceof CollectorError && error.code === 'STORAGE_UNAVAILABLE') return;
        const cause = causeOf(error);
        const again = lastWriteFailed === (cause.code ?? cause.message);
        lastWriteFailed = cause.code ?? cause.message;
        // Once per run of failures of one cause (a lock held for minutes fails every batch).
        if (!again)
          log.error(
            { cause, spans, requests },
            'storage write failed; its requests were answered 503',
          );
      },
    },
  });
  const bodyBudget = new BodyBudget(options.maxInflightBytes ?? bounds.inflightBytes);
  const memory = options.memoryLimitBytes
    ? startMemoryLimiter({ limitBytes: options.memoryLimitBytes, budget: bodyBudget, queue, log })
    : undefined;
  if (!options.hashKey) log.warn(NO_HASH_KEY_WARNING);
  const content = createContentPolicy({
    hashKey: options.hashKey ?? randomHashKey(),
    capture: options.captureContent ?? false,
  });
  const app = await buildApp({
    storage,
    queue,
    content,
    maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
    bodyBudget,
    memory,
    token: options.token,
    loggerInstance: log,
    metrics,
    ready: async () => {
      const ready = await storage.ready();
      if (!ready.ok) return ready;
      return lastWriteFailed
        ? { ok: false, reason: `last write failed: ${lastWriteFailed}` }
        : ready;
    },
    version: COLLECTOR_VERSION,
  });
  metrics.observe(queue, bodyBudget, storage);
  if (memory) metrics.observeMemory(memory);
  const retention = options.retentionMs
    ? startRetention(storage, queue, options.retentionMs, 60_000, (error) =>
        log.error(
          { cause: causeOf(error) },
          'retention step failed; retrying at the next interval',
        ),
      )
    : undefined;
  const webhook = options.alertWebhook
    ? startWebhook(storage, options.alertWebhook, { onError: (message) => log.warn(message) })
    : undefined;
  // A start that fails closes what it opened (the pool's connections would keep the process alive).
  const abandon = async (error: unknown): Promise<never> => {
    memory?.stop();
    retention?.stop();
    await webhook?.stop();
    await app.close();
    if (!options.storage) await storage.close();
    throw error;
  };
  // gRPC binds first: a taken gRPC port then fails the start before the HTTP side says it is listening.
  const grpc =
    options.grpcPort === undefined
      ? undefined
      : await startGrpcReceiver({
          host: options.host ?? '127.0.0.1',
          port: options.grpcPort,
          maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
          budget: bodyBudget,
          memory,
          retryAfterSeconds: 1,
          token: tokenCheck(options.token),
          queue,
          metrics,
          content,
          onError: (error) => log.error({ cause: causeOf(error) }, 'OTLP/gRPC export failed'),
        }).catch(abandon);
  const address = await app
    .listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 4318 })
    .catch(async (error: unknown) => {
      await grpc?.close();
      return abandon(error);
    });
  let closing: Promise<void> | undefined;
  return {
    app,
    storage,
    queue,
    bodyBudget,
    metrics,
    url: address.replace('[::1]', 'localhost'),
    grpcPort: grpc?.port,
    close: () => {
      closing ??= (async () => {
        memory?.stop();
        retention?.stop();
        await webhook?.stop();
        // Stop accepting connections first; requests in flight still get their answer.
        await Promise.all([closeHttp(app), grpc?.close()]);
        await queue.close();
        if (!options.storage) await storage.close();
      })();
      return closing;
    },
  };
}

/** How long requests in flight get to finish when the collector stops, before their connections are cut. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Closes the HTTP server: requests in flight get their answer, idle keep-alive connections are closed. A
 * connection that never sent a request (a client's pooled socket, a dead peer) is neither, and node's close()
 * waits for it until its request timeout: after the grace it is cut (test/shutdown.test.ts).
 */
async function closeHttp(app: {
  close(): Promise<unknown>;
  server: { closeAllConnections(): void };
}) {
  const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}
