// What every OTLP receiver (HTTP and gRPC) does with a decoded batch: count it, apply the collector's content
// rules to foreign tool spans (content-policy.ts), queue it, and wait for the commit. The receivers only
// translate the outcome into their protocol's status.

import type { CollectorMetrics } from '../ops/metrics.js';
import type { DecodedBatch, DecodeResult } from '../otlp/model.js';
import { applyContentPolicy, type CleanValues, type ContentPolicy } from './content-policy.js';
import type { WriteQueue } from './write-queue.js';

export type IntakeOptions = {
  queue: WriteQueue;
  metrics: CollectorMetrics;
  content: ContentPolicy;
};

/** The labels of the batch's metrics: which receiver took it in, and how it was encoded. */
export type IntakeLabels = { protocol: 'http' | 'grpc'; encoding: string };

/** Why a batch was not stored: the queue is full (retry later), the collector is closing, storage failed. */
export type IntakeOutcome = { ok: true } | { ok: false; reason: 'full' | 'closed' | 'storage' };

/**
 * Counts, filters and queues the batch; resolves once it is committed or refused. Does not wait while holding
 * the batch: the queue processes the spans as it takes them (write-queue.ts) and keeps only the processed
 * batch, and the receivers keep only what they answer with, so the decoded spans die with the request's turn.
 */
export function takeIn(
  batch: DecodedBatch,
  labels: IntakeLabels,
  o: IntakeOptions,
): Promise<IntakeOutcome> {
  const { spans, rejected } = batch;
  o.metrics.spansReceived.inc(labels, spans.length + rejected);
  if (rejected > 0) o.metrics.spansRejected.inc({ ...labels, reason: 'invalid' }, rejected);
  if (spans.length === 0) return Promise.resolve({ ok: true });
  const clean: CleanValues = new Set();
  for (const span of spans) applyContentPolicy(span, o.content, clean);
  const queuedAt = process.hrtime.bigint();
  const queued = o.queue.enqueue(spans);
  if (!queued.ok) {
    o.metrics.spansRejected.inc(
      { ...labels, reason: queued.reason === 'full' ? 'queue_full' : 'closed' },
      spans.length,
    );
    return Promise.resolve({ ok: false, reason: queued.reason });
  }
  return committed(queued.committed, spans.length, queuedAt, labels, o.metrics);
}

/** A decoded request taken in: what its answer needs (the spans it rejected), and the outcome to wait for. */
export type TakenIn =
  | { ok: true; rejected: number; errors: string[]; outcome: Promise<IntakeOutcome> }
  | { ok: false; message: string };

/** A request taken in: what a receiver keeps while it waits for the commit. */
export type Taken = Extract<TakenIn, { ok: true }>;

/** Why a receiver refused a request for now (the `reason` of toolscope_ingest_requests_refused_total). */
export type RefusalReason = 'memory_limit' | 'bodies_in_flight' | 'queue_full';

/**
 * takeIn for a receiver's decoded request. A receiver calls it with the decoder's result and waits on
 * `outcome` holding only this, not the batch.
 */
export function takeInDecoded(
  decoded: DecodeResult,
  labels: IntakeLabels,
  o: IntakeOptions,
): TakenIn {
  if (!decoded.ok) return { ok: false, message: decoded.message };
  const { rejected, errors } = decoded.batch;
  return { ok: true, rejected, errors, outcome: takeIn(decoded.batch, labels, o) };
}

async function committed(
  commit: Promise<void>,
  count: number,
  queuedAt: bigint,
  labels: IntakeLabels,
  metrics: CollectorMetrics,
): Promise<IntakeOutcome> {
  try {
    await commit;
    metrics.ackSeconds.observe(Number(process.hrtime.bigint() - queuedAt) / 1e9);
    return { ok: true };
  } catch {
    // The write queue logged the failed batch once, with its cause.
    metrics.spansRejected.inc({ ...labels, reason: 'storage' }, count);
    return { ok: false, reason: 'storage' };
  }
}
