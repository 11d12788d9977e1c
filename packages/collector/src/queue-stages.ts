// The write queue's stages as the collector wires them (ingest/write-queue.ts BatchStages): each request's spans
// processed as it is queued (process/batch.ts) and its batch sealed off V8's heap while it waits
// (storage/threads/sealed-batch.ts); a write's sealed batches go to the store together, whose writer joins them
// with the process stage's merge (WriteStages.merge).
import type { BatchStages } from './ingest/write-queue.js';
import { processBatch } from './process/batch.js';
import { joinSealed, type SealedBatches, sealBatch } from './storage/threads/sealed-batch.js';

export const queueStages: BatchStages<SealedBatches> = {
  process: (spans) => sealBatch(processBatch(spans)),
  merge: joinSealed,
};
