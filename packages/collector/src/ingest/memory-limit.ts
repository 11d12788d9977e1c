// The collector's memory limiter wired to the rest of it: idle means no body held and no span waiting for its
// commit, garbage collections forced when the runtime allows, and a log line when ingest starts being refused.
import type { Logger } from 'pino';
import type { BodyBudget } from './body-budget.js';
import { forcedGc } from './forced-gc.js';
import { logMallocAdvice, type MallocContext, mallocContext } from './malloc-tuning.js';
import { MemoryLimiter } from './memory-limiter.js';
import type { WriteQueue } from './write-queue.js';
import { YoungGenerationCap } from './young-generation.js';

/** Defaults of the bounds that refuse before the limiter can see the memory (a wave of requests at once). */
export type IngestBounds = { inflightBytes: number; pendingSpans: number };

const DEFAULT_BOUNDS: IngestBounds = { inflightBytes: 64 * 1024 * 1024, pendingSpans: 200_000 };

/** Spans pending per MiB of a memory limit, unless the store says otherwise (Storage.pendingSpansPerMiB). */
export const PENDING_SPANS_PER_MIB = 48;

/**
 * The in-flight body budget and the write queue's bound, scaled down to a memory limit: the limiter reads the
 * resident set, which shows a wave of requests admitted together only once they are decoded, so these bound the
 * wave itself: a sixteenth of the limit in bodies (12.5 MiB at the default 200: fifty 250 KiB batches), and
 * 48 spans per MiB of it (9,600 at 200, above the 8,192 of sixteen 512-span requests in flight) or the store's
 * own figure. At 80 per MiB (16,000) 30 s floods of `pnpm flood` on SQLite went over the limit in 8 of 14 runs
 * (188–218 MiB); at 48, in 2 of 8 (185–213), acknowledging more (docs/decisions/0071). PostgreSQL stays within
 * the limit at 80 (peaks 168-180 MiB) and acknowledges 10-31 % more than at 48
 * (docs/decisions/0072-malloc-keeps-the-flood.md). How many spans one write holds is the store's
 * (Storage.writeSpans).
 */
export function ingestBounds(
  limitBytes: number | undefined,
  pendingSpansPerMiB = PENDING_SPANS_PER_MIB,
): IngestBounds {
  if (!limitBytes) return DEFAULT_BOUNDS;
  return {
    inflightBytes: Math.min(DEFAULT_BOUNDS.inflightBytes, Math.round(limitBytes / 16)),
    pendingSpans: Math.min(
      DEFAULT_BOUNDS.pendingSpans,
      Math.round((limitBytes / 1024 / 1024) * pendingSpansPerMiB),
    ),
  };
}

/**
 * How large the HTTP thread's young generation may grow under a memory limit: a twenty-fifth of it (8 MiB at the
 * default 200, two 4 MiB semi-spaces), between 4 MiB and V8's own 32. Each request's decoding and processing
 * allocated about 2.7 MiB that lived until its batch was packed: with semi-spaces under that, most of it outlived
 * scavenges and was copied, then promoted as garbage (decision 0059 has the measurements). Since decision 0063
 * a 512-span request allocates about 1.6 MiB; the size was not measured again.
 */
export function youngGenerationMaxBytes(limitBytes: number): number {
  const MiB = 1024 * 1024;
  return Math.min(32 * MiB, Math.max(4 * MiB, 2 ** Math.floor(Math.log2(limitBytes / 25))));
}

/**
 * The collector's spike allowance: the soft limit is the limit less a tenth (180 MiB at 200), not the
 * OpenTelemetry Collector's fifth. Its resident set does not fall when ingest is refused (V8 and malloc keep
 * what they committed), so a soft limit under the plateau of steady work refused for ever: at 160 of 200 the
 * built collector plateaued at 170-173 MiB and served one request at a time, at 180 it peaked at 185-186 with
 * few refusals (decision 0059). What one reading can miss is bounded apart: the bodies in flight (a sixteenth)
 * and the one request decoded at a time.
 */
export const spikeBytes = (limitBytes: number) => Math.round(limitBytes / 10);

/** The collector's memory limiter: idle while no body is held and no span waits for its commit. */
export function startMemoryLimiter({
  limitBytes,
  budget,
  queue,
  log,
  malloc = mallocContext(),
}: {
  limitBytes: number;
  budget: BodyBudget;
  queue: WriteQueue;
  log: Logger;
  /** Where the process runs, for the advice on malloc's setting (malloc-tuning.ts). */
  malloc?: MallocContext;
}): MemoryLimiter {
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  let lastLine = 0;
  const young = new YoungGenerationCap({ maxBytes: youngGenerationMaxBytes(limitBytes) });
  const limiter = new MemoryLimiter({
    limitBytes,
    spikeBytes: spikeBytes(limitBytes),
    everyCheck: () => young.check(),
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
  logMallocAdvice(log, limitBytes, malloc);
  return limiter;
}
