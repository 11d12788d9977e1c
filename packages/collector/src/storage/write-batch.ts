// What storage's write contract takes (contract.ts SpanWriter.write): a batch as the process stage made it
// (process/batch.ts), every span encoded for its block and every tool call in the call model's columns. It holds
// only strings, numbers and typed arrays, so it crosses to a writer thread cheaply; what needs the database (row
// numbers, de-duplication, pairing with stored rows) is done in the batch's transaction.
import type { CallColumns } from '../calls/call-columns.js';
import type { ContractValues } from '../contracts/contract-span.js';

/**
 * A batch as columns: one entry per span in each array. Built on the decoding thread and copied to the writer
 * thread; typed arrays and flat string arrays copy faster than an object per span (measured, serialize plus
 * deserialize: 11.5 µs per span with an object per span, 6.9 with these columns), and the rollup inputs are
 * read from the call values on the writer side instead of being sent twice.
 */
export type WriteBatch = {
  resources: string[];
  traceIds: string[];
  spanIds: string[];
  startNs: BigInt64Array;
  /** Index into `resources`. */
  resource: Uint32Array;
  json: string[];
  /** Index into `calls`, or -1 when the span is not a tool call. */
  call: Int32Array;
  calls: CallColumns;
  /** Catalog rows of the batch's contract spans (contracts/contract-span.ts). */
  contracts: ContractValues[];
  /** The batch's model calls (calls/model-call.ts): what loop detection counts as a loop's model tokens. */
  modelCalls: PlannedModelCall[];
  /**
   * When packed where the batch was decoded (process/packing.ts): the spans of each (trace, resource) of the batch
   * as one block; `group` is each span's group, its index into `packedIds` (span ids, space-joined) and `packed`.
   */
  group?: Int32Array;
  packedIds?: string[];
  /** The packed blocks end to end; `ends[g]` is where group g's ends. */
  packed?: { bytes: Uint8Array; ends: Uint32Array };
  /**
   * Each span's JSON length in UTF-8 bytes within its packed group (the block is written and cut as bytes, and a
   * span's text may hold any character); `json` is then empty (process/packing.ts).
   */
  jsonBytes?: Uint32Array;
};

/** A model call of the batch: its span (an index into the plan's spans), time and tokens. */
export type PlannedModelCall = {
  span: number;
  startNs: bigint;
  endNs: bigint;
  inputTokens: number | null;
  outputTokens: number | null;
};

/**
 * `b` as one object of the one shape (V8 map) every batch a writer reads has, its fields in this order: a batch
 * opened from its structured clone and one merged from several were two shapes, and the writer's optimized code,
 * made for one, was thrown away and made again when it met the other (`--trace-deopt`: "wrong map").
 */
export function writeBatch(b: WriteBatch): WriteBatch {
  const out: WriteBatch = {
    resources: b.resources,
    traceIds: b.traceIds,
    spanIds: b.spanIds,
    startNs: b.startNs,
    resource: b.resource,
    json: b.json,
    call: b.call,
    calls: b.calls,
    contracts: b.contracts,
    modelCalls: b.modelCalls,
  };
  // Every batch of a running collector is packed or none is (process/batch.ts), so these keep it one shape.
  if (b.group !== undefined) out.group = b.group;
  if (b.packedIds !== undefined) out.packedIds = b.packedIds;
  if (b.packed !== undefined) out.packed = b.packed;
  if (b.jsonBytes !== undefined) out.jsonBytes = b.jsonBytes;
  return out;
}
