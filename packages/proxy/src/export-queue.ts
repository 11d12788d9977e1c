// The proxy's span queue: each ended span is encoded to OTLP protobuf at once, straight into the bytes of the
// batch it will be exported in (one buffer per scope), and batches are exported one at a time, so a collector
// that is down or slow costs the traffic nothing: when the queue is full, spans are dropped and counted, and said
// once. A queued span is bytes in a buffer, not an object of its own: objects that live until the next export
// are what the young generation copies at every scavenge, and what makes V8 grow it. Each span goes under the
// resource of its session's server, decided as it ends.
import { causeOf, type Logger } from './log.js';
import type { OtlpExporter } from './otlp/http-exporter.js';
import { ProtoWriter, WIRE_LEN } from './otlp/proto-writer.js';
import type { ProxySpan, Scope, SpanSink } from './otlp/proxy-span.js';
import type { OtlpResource } from './otlp/resources.js';
import {
  encodeRequest,
  encodeScope,
  encodeSpan,
  type ResourcePart,
  type ScopePart,
} from './otlp/span-encoder.js';

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

/** What an export request says besides its spans: each span's resource, and the scopes spans refer to by index. */
export type ExportEnvelope = {
  resource: (span: ProxySpan) => OtlpResource;
  scopes: readonly Scope[];
};

/** Per scope index, the spans of one resource as `spans` fields of a ScopeSpans. */
type ByScope = (ProtoWriter | undefined)[];
/** One export request's spans, by resource (in the order the resources first came). */
type Batch = { byResource: Map<OtlpResource, ByScope>; count: number };

// A batch of 512 spans of ~450 bytes fits; writers are reused, so this is allocated a few times per process.
const BATCH_WRITER_BYTES = 256 * 1024;
// A batch's second and later resources (a proxy serving several servers at once) start smaller and grow.
const MORE_WRITER_BYTES = 16 * 1024;
const SPARE_WRITERS = 4;

/** Bounded batching span queue with exact accounting. */
export class ExportQueue implements SpanSink {
  readonly #exporter: OtlpExporter;
  readonly #envelope: ExportEnvelope;
  readonly #scopeBytes: Buffer[] = [];
  readonly #spare: ProtoWriter[] = [];
  readonly #log: Logger;
  readonly #maxQueue: number;
  readonly #maxBatch: number;
  readonly #delayMs: number;
  /** Batches waiting for export, oldest first; all but the last hold `maxBatch` spans. */
  #batches: Batch[] = [];
  #queued = 0;
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
    if (this.#queued >= this.#maxQueue) {
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
    let batch = this.#batches[this.#batches.length - 1];
    if (!batch || batch.count >= this.#maxBatch) {
      batch = { byResource: new Map(), count: 0 };
      this.#batches.push(batch);
    }
    let w: ProtoWriter | undefined;
    let start = 0;
    try {
      const resource = this.#envelope.resource(span);
      let byScope = batch.byResource.get(resource);
      if (!byScope) {
        byScope = [];
        batch.byResource.set(resource, byScope);
      }
      const first = batch.byResource.size === 1;
      w = byScope[span.scope] ??=
        this.#spare.pop() ?? new ProtoWriter(first ? BATCH_WRITER_BYTES : MORE_WRITER_BYTES);
      start = w.pos;
      w.tag(2, WIRE_LEN);
      const at = w.begin();
      encodeSpan(w, span);
      w.end(at);
    } catch (error) {
      // What the span had written is taken back: the batch holds whole spans only.
      if (w) w.pos = start;
      this.stats.dropped++;
      this.#log.once('encode-failed', 'error', 'a span could not be encoded', causeOf(error));
      return;
    }
    batch.count++;
    this.#queued++;
    this.stats.queued = this.#queued;
    if (this.#queued >= this.#maxBatch) this.#kick();
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
    if (this.#exporting || this.#queued === 0) return;
    const batch = this.#batches.shift() as Batch;
    this.#queued -= batch.count;
    this.stats.queued = this.#queued;
    this.#exporting = this.#send(batch).finally(() => {
      this.#exporting = undefined;
      if (this.#queued >= this.#maxBatch) this.#kick();
    });
  }

  /** The request of a batch; its writers go back to the spares. */
  #request(batch: Batch): Buffer {
    const parts: ResourcePart[] = [];
    for (const [resource, byScope] of batch.byResource) {
      const scopes: ScopePart[] = [];
      byScope.forEach((w, index) => {
        if (!w || w.pos === 0) return;
        const scope = this.#envelope.scopes[index];
        if (!scope) return;
        this.#scopeBytes[index] ??= encodeScope(scope);
        scopes.push({ scope: this.#scopeBytes[index] as Buffer, spans: w.written() });
      });
      if (scopes.length > 0) parts.push({ resource: resource.bytes, scopes });
    }
    const body = encodeRequest(parts);
    for (const byScope of batch.byResource.values())
      for (const w of byScope) {
        // A writer a huge span made grow is let go rather than kept.
        if (!w || this.#spare.length >= SPARE_WRITERS || w.capacity > BATCH_WRITER_BYTES * 4)
          continue;
        w.reset();
        this.#spare.push(w);
      }
    return body;
  }

  async #send(batch: Batch): Promise<void> {
    const spans = batch.count;
    try {
      const body = this.#request(batch);
      const result = await this.#exporter.export(body);
      if (result.ok) {
        this.stats.exported += spans;
        if (this.#failing) this.#log.log('info', 'collector reachable again');
        this.#failing = false;
      } else {
        this.stats.failed += spans;
        if (!this.#failing)
          this.#log.log('warn', 'span export failed; spans are counted and dropped', {
            ...causeOf(result.error),
            spans: spans,
          });
        this.#failing = true;
      }
    } catch (error) {
      this.stats.failed += spans;
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
      while (this.#exporting || this.#queued > 0) {
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
      this.stats.dropped += this.#queued;
      this.#batches = [];
      this.#queued = 0;
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
