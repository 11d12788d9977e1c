// The write queue's stages as the collector wires them (ingest/write-queue.ts BatchStages): each request's spans
// processed as it is queued (process/batch.ts), and, for a store that takes them (Storage.takesSealed), its batch
// sealed off V8's heap while it waits (storage/threads/sealed-batch.ts): a write's sealed batches go to the store
// together, whose writer joins them with the process stage's merge (WriteStages.merge). Any other store gets
// processed batches, joined here.
import type { BatchStages } from './ingest/write-queue.js';
import { processBatch } from './process/batch.js';
import { mergeBatches } from './process/merge.js';
import type { Storage, WriteInput } from './storage/contract.js';
import { joinSealed, type SealedBatches, sealBatch } from './storage/threads/sealed-batch.js';
import type { WriteBatch } from './storage/write-batch.js';

const SEALED: BatchStages<SealedBatches> = {
  process: (spans) => sealBatch(processBatch(spans)),
  merge: joinSealed,
};

const PROCESSED: BatchStages<WriteBatch> = {
  process: (spans) => processBatch(spans),
  merge: mergeBatches,
};

/** The stages for `storage`: one kind of batch for the queue's life, so a write never mixes the two. */
export function queueStages(storage: Pick<Storage, 'takesSealed'>): BatchStages<WriteInput> {
  return storage.takesSealed ? SEALED : PROCESSED;
}
