// What every OTLP receiver (HTTP and gRPC) does with a decoded batch: count it, apply the collector's content
// rules to foreign tool spans (content-policy.ts), queue it, and wait for the commit. The receivers only
// translate the outcome into their protocol's status.

import type { CollectorMetrics } from '../ops/metrics.js';
import type { DecodedBatch } from '../otlp/model.js';
import { applyContentPolicy, type ContentPolicy } from './content-policy.js';
import type { WriteQueue } from './write-queue.js';

export type IntakeOptions = {
  queue: WriteQueue;
  metrics: CollectorMetrics;
  content: ContentPolicy;
};

/** Why a batch was not stored: the queue is full (retry later), the collector is closing, storage failed. */
export type IntakeOutcome = { ok: true } | { ok: false; reason: 'full' | 'closed' | 'storage' };

export async function takeIn(
  batch: DecodedBatch,
  labels: { protocol: 'http' | 'grpc'; encoding: string },
  o: IntakeOptions,
): Promise<IntakeOutcome> {
  const { spans, rejected } = batch;
  o.metrics.spansReceived.inc(labels, spans.length + rejected);
  if (rejected > 0) o.metrics.spansRejected.inc({ ...labels, reason: 'invalid' }, rejected);
  if (spans.length === 0) return { ok: true };
  for (const span of spans) applyContentPolicy(span, o.content);
  const queuedAt = process.hrtime.bigint();
  const queued = o.queue.enqueue(spans);
  if (!queued.ok) {
    o.metrics.spansRejected.inc(
      { ...labels, reason: queued.reason === 'full' ? 'queue_full' : 'closed' },
      spans.length,
    );
    return { ok: false, reason: queued.reason };
  }
  try {
    await queued.committed;
    o.metrics.ackSeconds.observe(Number(process.hrtime.bigint() - queuedAt) / 1e9);
    return { ok: true };
  } catch {
    // The write queue logged the failed batch once, with its cause.
    o.metrics.spansRejected.inc({ ...labels, reason: 'storage' }, spans.length);
    return { ok: false, reason: 'storage' };
  }
}
