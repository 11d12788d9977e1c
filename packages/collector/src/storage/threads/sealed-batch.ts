// Batches sealed as they are queued: each processed batch's structured clone (posted-batch.ts), made when its
// request is taken in, not when its write starts. The write queue holds a request's batch on the HTTP thread
// until the writer takes it; under load about nine of them waited at once in bench:ingest, a quarter of a MiB
// of objects each on V8's heap, which every young-generation collection copied until they were promoted and
// later marked (docs/decisions/0075-batches-sealed-as-they-are-queued.md). Sealed, a batch is bytes outside
// the heap that no collection visits, and its write hands them to the writer thread without a copy; the
// writer opens them and joins them into one write with the process stage's merge (WriteStages.merge).
import { deserialize, serialize } from 'node:v8';
import type { WriteBatch } from '../write-batch.js';
import { type PostedBatch, postedBatch, receivedBatch } from './posted-batch.js';

/** One write's batches, each sealed by `sealBatch`, in their order. */
export type SealedBatches = { readonly sealed: readonly Uint8Array[] };

/** What a store's write takes: a processed batch, or batches sealed as they were queued. */
export type WriteInput = WriteBatch | SealedBatches;

export function isSealed(input: WriteInput): input is SealedBatches {
  return 'sealed' in input;
}

/** A processed batch as bytes of its own, outside V8's heap. */
export function sealBatch(batch: WriteBatch): SealedBatches {
  return { sealed: [serialize(postedBatch(batch))] };
}

/** Several writes' sealed batches as one write, in their order. */
export function joinSealed(parts: readonly SealedBatches[]): SealedBatches {
  return parts.length === 1
    ? (parts[0] as SealedBatches)
    : { sealed: parts.flatMap((p) => p.sealed) };
}

/** The batches sealed, whole again, in their order. */
export function unsealed(input: SealedBatches): WriteBatch[] {
  return input.sealed.map((bytes) => receivedBatch(deserialize(bytes) as PostedBatch));
}

/** The one batch a write commits: `input`, or its sealed batches opened and joined by `merge` (WriteStages'). */
export function batchOf(
  input: WriteInput,
  merge: (batches: readonly WriteBatch[]) => WriteBatch,
): WriteBatch {
  return isSealed(input) ? merge(unsealed(input)) : input;
}

/**
 * A write as a writer thread receives it, on either backend: its batches sealed (a processed batch is sealed
 * here), with their buffers to move along with the message (postMessage's transfer list).
 */
export type SealedWrite = { type: 'write'; sealed: readonly Uint8Array[] };
export function sealedWrite(input: WriteInput): { body: SealedWrite; transfer: ArrayBuffer[] } {
  const sealed = isSealed(input) ? input : sealBatch(input);
  return { body: { type: 'write', sealed: sealed.sealed }, transfer: transferable(sealed) };
}

/**
 * The memory of each sealed batch a thread may take over (moved, not copied): every one whose bytes fill their
 * own buffer, as `serialize` makes them. Once posted they are gone from this thread.
 */
export function transferable(input: SealedBatches): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const bytes of input.sealed) {
    const buffer = bytes.buffer;
    if (
      buffer instanceof ArrayBuffer &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === buffer.byteLength
    )
      buffers.push(buffer);
  }
  return buffers;
}
