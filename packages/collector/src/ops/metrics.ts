// The collector's own metrics (GET /metrics, Prometheus text format, prom-client): what ingest received,
// stored and refused, the write queue, body budget and memory limit, write and acknowledgement durations, HTTP
// answers, active flags and the store's size. One registry per collector, so several in one process do not collide.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { flagsOf } from '../detection/read-flags.js';
import { FLAG_KINDS } from '../detectors/flag.js';
import type { BodyBudget } from '../ingest/body-budget.js';
import type { MemoryLimiter } from '../ingest/memory-limiter.js';
import type { WriteQueue } from '../ingest/write-queue.js';
import type { Storage } from '../storage/contract.js';

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HOUR_NS = 3_600_000_000_000n;

export class CollectorMetrics {
  readonly registry = new Registry();
  readonly spansReceived = new Counter({
    name: 'toolscope_spans_received_total',
    help: 'Spans in decoded ingest requests, by protocol and encoding',
    labelNames: ['protocol', 'encoding'] as const,
    registers: [this.registry],
  });
  readonly spansRejected = new Counter({
    name: 'toolscope_spans_rejected_total',
    help: 'Spans refused: invalid (partial success), or in requests answered 429/503',
    labelNames: ['protocol', 'encoding', 'reason'] as const,
    registers: [this.registry],
  });
  readonly spansStored = new Counter({
    name: 'toolscope_spans_stored_total',
    help: 'Spans committed to storage (duplicates of stored spans excluded)',
    registers: [this.registry],
  });
  readonly spansDuplicate = new Counter({
    name: 'toolscope_spans_duplicate_total',
    help: 'Spans already stored when they arrived again (exporter retries)',
    registers: [this.registry],
  });
  readonly batches = new Counter({
    name: 'toolscope_write_batches_total',
    help: 'Storage write transactions, by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly writeSeconds = new Histogram({
    name: 'toolscope_write_duration_seconds',
    help: 'Time of one storage write (a batch, through COMMIT)',
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly ackSeconds = new Histogram({
    name: 'toolscope_ingest_ack_duration_seconds',
    help: 'Time from queueing a request’s spans to their commit (what an exporter waits for)',
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly requestsRefused = new Counter({
    name: 'toolscope_ingest_requests_refused_total',
    help:
      'Ingest requests refused with 429 / RESOURCE_EXHAUSTED and a retry hint, by protocol and reason ' +
      '(memory_limit, bodies_in_flight, queue_full)',
    labelNames: ['protocol', 'reason'] as const,
    registers: [this.registry],
  });
  readonly httpRequests = new Counter({
    name: 'toolscope_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  /** Gauges of the memory limit, read when scraped: the resident set, the limits, whether ingest is refused. */
  observeMemory(limiter: MemoryLimiter): void {
    const gauge = (name: string, help: string, value: () => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(value());
        },
      });
    gauge('toolscope_memory_resident_bytes', 'Resident set of the collector process', () =>
      process.memoryUsage.rss(),
    );
    gauge(
      'toolscope_memory_limit_bytes',
      'The memory limit (--memory-limit-mib): the resident set the process should never pass',
      () => limiter.limitBytes,
    );
    gauge(
      'toolscope_memory_soft_limit_bytes',
      'Past this resident set, ingest is refused with a retry hint (the limit less a tenth)',
      () => limiter.softLimitBytes,
    );
    gauge('toolscope_memory_limited', '1 while ingest is refused for memory, else 0', () =>
      limiter.reading.limited ? 1 : 0,
    );
    new Counter({
      name: 'toolscope_memory_forced_gc_total',
      help: 'Full garbage collections forced by the memory limiter',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(limiter.forcedGcs);
      },
    });
  }

  /** Gauges read when scraped: the queue, the body budget, the store's size and the active flags. */
  observe(queue: WriteQueue, budget: BodyBudget, storage: Storage): void {
    new Gauge({
      name: 'toolscope_queue_pending_spans',
      help: 'Spans accepted and not yet committed',
      registers: [this.registry],
      collect() {
        this.set(queue.pendingSpans);
      },
    });
    new Gauge({
      name: 'toolscope_body_bytes_in_flight',
      help: 'Ingest request bytes held in memory (received plus inflated)',
      registers: [this.registry],
      collect() {
        this.set(budget.stats.usedBytes);
      },
    });
    new Gauge({
      name: 'toolscope_database_size_bytes',
      help: 'Bytes the store takes (SQLite file and WAL; PostgreSQL database size)',
      registers: [this.registry],
      async collect() {
        // Storage that cannot answer (an outage) leaves the last value: /metrics must answer then most of all.
        // The outage itself is logged once by storage (pg-health.ts), not again on every scrape.
        const bytes = await storage.sizeBytes().catch(() => undefined);
        if (bytes !== undefined) this.set(bytes);
      },
    });
    new Gauge({
      name: 'toolscope_flags_active',
      help: 'Flags with activity in the last hour, by kind',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      async collect() {
        const until = BigInt(Date.now()) * 1_000_000n;
        const flags = await flagsOf(storage, until - HOUR_NS, until + 60_000_000_000n, {}).catch(
          () => undefined,
        );
        if (!flags) return;
        for (const kind of FLAG_KINDS)
          this.set({ kind }, flags.filter((f) => f.kind === kind).length);
      },
    });
  }
}
