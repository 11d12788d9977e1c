// The operator's routes: GET /healthz (the process answers; never needs the token, for liveness probes and
// the compose healthcheck), GET /readyz (storage reachable, migrated and writable, and the last write did not
// fail, answered within READY_TIMEOUT_MS; no token either, and no details beyond a code, which the log has),
// GET /metrics (Prometheus text; behind the token when one is set).

import type { FastifyInstance } from 'fastify';
import { COLLECTOR_ERRORS } from '../errors.js';
import type { CollectorMetrics } from '../ops/metrics.js';

export type Readiness = () => Promise<{ ok: true } | { ok: false; reason: string }>;

/** Routes that answer without the token (the auth hook skips them). */
export const OPEN_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * How long /readyz waits for storage to answer: a database that stops answering (a stalled host) makes the
 * probe say not ready within this, rather than after the connection timeout or a prober's own timeout.
 */
export const READY_TIMEOUT_MS = 2_000;

async function boundedReadiness(ready: Readiness): ReturnType<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: false; reason: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `storage did not answer within ${READY_TIMEOUT_MS} ms` }),
      READY_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([ready(), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerOpsRoutes(
  app: FastifyInstance,
  opts: { metrics: CollectorMetrics; ready: Readiness; version: string },
): void {
  app.get('/healthz', async () => ({ status: 'ok', version: opts.version }));

  let lastReason = '';
  app.get('/readyz', async (_request, reply) => {
    const ready = await boundedReadiness(opts.ready);
    if (ready.ok) {
      lastReason = '';
      return { status: 'ready' };
    }
    // Logged when the reason changes, not on every probe.
    if (ready.reason !== lastReason) app.log.warn({ reason: ready.reason }, 'not ready');
    lastReason = ready.reason;
    return reply
      .code(COLLECTOR_ERRORS.STORAGE_UNAVAILABLE.status)
      .send({ status: 'unavailable', code: 'STORAGE_UNAVAILABLE' });
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await opts.metrics.registry.metrics();
    return reply.type(opts.metrics.registry.contentType).send(text);
  });
}
