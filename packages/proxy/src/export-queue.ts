// The proxy's span processor: a bounded queue exported in batches, one export at a time, so a collector that is
// down or slow costs the traffic nothing: when the queue is full, spans are dropped and counted, and said once.
import type { Context } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type {
  ReadableSpan,
  Span,
  SpanExporter,
  SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { causeOf, type Logger } from './log.js';

export type ExportQueueOptions = {
  /** Spans held at most; beyond, new spans are dropped (default 4096). */
  maxQueue?: number;
  /** Spans per export request (default 512). */
  maxBatch?: number;
  /** How long finished spans wait for a batch to fill (default 1000 ms). */
  delayMs?: number;
};

/** What happened to the spans so far. */
export type ExportStats = { exported: number; dropped: number; failed: number; queued: number };

/** Bounded batching span processor with exact accounting. */
export class ExportQueue implements SpanProcessor {
  readonly #exporter: SpanExporter;
  readonly #log: Logger;
  readonly #maxQueue: number;
  readonly #maxBatch: number;
  readonly #delayMs: number;
  #queue: ReadableSpan[] = [];
  #exporting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #stopped = false;
  readonly stats: ExportStats = { exported: 0, dropped: 0, failed: 0, queued: 0 };

  constructor(exporter: SpanExporter, log: Logger, options: ExportQueueOptions = {}) {
    this.#exporter = exporter;
    this.#log = log;
    this.#maxQueue = options.maxQueue ?? 4096;
    this.#maxBatch = options.maxBatch ?? 512;
    this.#delayMs = options.delayMs ?? 1000;
  }

  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.#stopped) return;
    if (this.#queue.length >= this.#maxQueue) {
      this.stats.dropped++;
      this.#log.once(
        'queue-full',
        'warn',
        'span queue full: spans are dropped until the collector keeps up',
        {
          maxQueue: this.#maxQueue,
        },
      );
      return;
    }
    this.#queue.push(span);
    this.stats.queued = this.#queue.length;
    if (this.#queue.length >= this.#maxBatch) this.#kick();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#kick();
      }, this.#delayMs);
      // A pending batch never keeps the process alive: shutdown flushes it.
      this.#timer.unref();
    }
  }

  /** Starts an export unless one is running (that one starts the next when it ends). */
  #kick(): void {
    if (this.#exporting || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#maxBatch);
    this.stats.queued = this.#queue.length;
    this.#exporting = this.#send(batch).finally(() => {
      this.#exporting = undefined;
      if (this.#queue.length >= this.#maxBatch) this.#kick();
    });
  }

  #send(batch: ReadableSpan[]): Promise<void> {
    return new Promise((resolve) => {
      try {
        this.#exporter.export(batch, (result) => {
          if (result.code === ExportResultCode.SUCCESS) {
            this.stats.exported += batch.length;
            if (this.#failing) this.#log.log('info', 'collector reachable again');
            this.#failing = false;
          } else {
            this.stats.failed += batch.length;
            if (!this.#failing)
              this.#log.log('warn', 'span export failed; spans are counted and dropped', {
                ...causeOf(result.error),
                spans: batch.length,
              });
            this.#failing = true;
          }
          resolve();
        });
      } catch (error) {
        this.stats.failed += batch.length;
        this.#log.once('export-threw', 'error', 'span exporter threw', causeOf(error));
        resolve();
      }
    });
  }

  /** Exports everything queued, or gives up after `timeoutMs` (what is left is counted as dropped). */
  async forceFlush(timeoutMs = 5000): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const deadline = Date.now() + timeoutMs;
    const drain = async () => {
      while (this.#exporting || this.#queue.length > 0) {
        if (!this.#exporting) this.#kick();
        await this.#exporting;
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
    });
    const outcome = await Promise.race([drain().then(() => 'done' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.stats.dropped += this.#queue.length;
      this.#queue = [];
      this.stats.queued = 0;
      this.#log.log('warn', 'spans not exported before the flush deadline', { timeoutMs });
    }
  }

  /** Flushes and stops the exporter, all within `timeoutMs`: a hanging export is not waited for past it. */
  async shutdown(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.forceFlush(timeoutMs);
    this.#stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
    });
    const stop = this.#exporter.shutdown().catch((error: unknown) => {
      this.#log.once('exporter-shutdown', 'warn', 'span exporter shutdown failed', causeOf(error));
    });
    await Promise.race([stop, late]);
    clearTimeout(timer);
  }
}
