// The collector's memory limiter wired to the rest of it: idle means no body held and no span waiting for its
// commit, garbage collections forced when the runtime allows, and a log line when ingest starts being refused.
import type { Logger } from 'pino';
import type { BodyBudget } from './body-budget.js';
import { forcedGc } from './forced-gc.js';
import { MemoryLimiter } from './memory-limiter.js';
import type { WriteQueue } from './write-queue.js';

/** Defaults of the bounds that refuse before the limiter can see the memory (a wave of requests at once). */
export type IngestBounds = { inflightBytes: number; pendingSpans: number };

const DEFAULT_BOUNDS: IngestBounds = { inflightBytes: 64 * 1024 * 1024, pendingSpans: 200_000 };

/**
 * The in-flight body budget and the write queue's bound, scaled down to a memory limit: the limiter reads the
 * resident set, which shows a wave of requests admitted together only once they are decoded, so these bound the
 * wave itself: an eighth of the limit in bodies, 80 spans per MiB of it (16,000 at the default 200 MiB).
 */
export function ingestBounds(limitBytes: number | undefined): IngestBounds {
  if (!limitBytes) return DEFAULT_BOUNDS;
  return {
    inflightBytes: Math.min(DEFAULT_BOUNDS.inflightBytes, Math.round(limitBytes / 8)),
    pendingSpans: Math.min(
      DEFAULT_BOUNDS.pendingSpans,
      Math.round((limitBytes / 1024 / 1024) * 80),
    ),
  };
}

/** The collector's memory limiter: idle while no body is held and no span waits for its commit. */
export function startMemoryLimiter({
  limitBytes,
  budget,
  queue,
  log,
}: {
  limitBytes: number;
  budget: BodyBudget;
  queue: WriteQueue;
  log: Logger;
}): MemoryLimiter {
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  let lastLine = 0;
  const limiter = new MemoryLimiter({
    limitBytes,
    idle: () => budget.stats.usedBytes === 0 && queue.pendingSpans === 0,
    collectGarbage: forcedGc(),
    onLimited: (reading) => {
      // Under a flood the limit is met many times a minute; one line a minute says it, /metrics counts it.
      if (Date.now() - lastLine < 60_000) return;
      lastLine = Date.now();
      log.warn(
        {
          rssMiB: mib(reading.rssBytes),
          softLimitMiB: mib(reading.softLimitBytes),
          limitMiB: mib(limitBytes),
        },
        'memory past the soft limit: ingest answers 429 / RESOURCE_EXHAUSTED until it is back under',
      );
    },
  }).start();
  if (limiter.reading.limited)
    log.warn(
      { rssMiB: mib(limiter.reading.rssBytes), softLimitMiB: mib(limiter.softLimitBytes) },
      'the collector takes more memory idle than the soft limit of --memory-limit-mib: ingest takes one ' +
        'request at a time; raise the limit',
    );
  return limiter;
}
