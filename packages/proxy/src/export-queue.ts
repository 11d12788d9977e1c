// The proxy's span queue: each ended span is encoded to OTLP protobuf at once and held as bytes in a bounded
// queue exported in batches, one export at a time, so a collector that is down or slow costs the traffic
// nothing: when the queue is full, spans are dropped and counted, and said once.
import type { Attributes } from '@opentelemetry/api';
import { causeOf, type Logger } from './log.js';
import type { OtlpExporter } from './otlp/http-exporter.js';
import { ProtoWriter } from './otlp/proto-writer.js';
import type { ProxySpan, Scope, SpanSink } from './otlp/proxy-span.js';
import { type EncodedSpan, encodeRequest, encodeSpan } from './otlp/span-encoder.js';

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

/** What an export request says besides its spans: the resource, and the scopes spans refer to by index. */
export type ExportEnvelope = { resource: Attributes; scopes: readonly Scope[] };

/** Bounded batching span queue with exact accounting. */
export class ExportQueue implements SpanSink {
  readonly #exporter: OtlpExporter;
  readonly #envelope: ExportEnvelope;
  readonly #writer = new ProtoWriter();
  readonly #log: Logger;
  readonly #maxQueue: number;
  readonly #maxBatch: number;
  readonly #delayMs: number;
  #queue: EncodedSpan[] = [];
  #exporting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #stopped = false;
  readonly stats: ExportStats = { exported: 0, dropped: 0, failed: 0, queued: 0 };

  constructor(
    exporter: OtlpExporter,
    envelope: ExportEnvelope,
    log: Logger,
    options: ExportQueueOptions = {},
  ) {
    this.#exporter = exporter;
    this.#envelope = envelope;
    this.#log = log;
    this.#maxQueue = options.maxQueue ?? 4096;
    this.#maxBatch = options.maxBatch ?? 512;
    this.#delayMs = options.delayMs ?? 1000;
  }

  onEnd(span: ProxySpan): void {
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
    this.#writer.reset();
    try {
      encodeSpan(this.#writer, span);
    } catch (error) {
      this.stats.dropped++;
      this.#log.once('encode-failed', 'error', 'a span could not be encoded', causeOf(error));
      return;
    }
    this.#queue.push({ scope: span.scope, bytes: this.#writer.copy() });
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

  async #send(batch: EncodedSpan[]): Promise<void> {
    try {
      const body = encodeRequest(this.#envelope.resource, this.#envelope.scopes, batch);
      const result = await this.#exporter.export(body);
      if (result.ok) {
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
    } catch (error) {
      this.stats.failed += batch.length;
      this.#log.once('export-threw', 'error', 'span exporter threw', causeOf(error));
    }
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
