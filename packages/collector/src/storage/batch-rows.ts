// What a writer stores of a batch, and the stages it runs to get it. Inside the batch's transaction, once its
// traces have row numbers and what is already stored is known, the process stage turns the batch into rows
// (process/rows.ts) and the detection stage decides its loops (loop-port.ts). The composition root names the
// module that builds both (src/stages.ts); a backend loads it where its writer runs, a thread of its own
// included, and so imports neither stage.
import type { Rollup, RollupInput } from '../aggregation/rollups.js';
import type { Tallies } from '../aggregation/tallies.js';
import type { TracedCall } from '../calls/call-columns.js';
import type { LogicalCall } from '../calls/logical-call.js';
import type { CallOutcome, MergedCall } from '../calls/logical-join.js';
import type { StoredCall } from '../calls/pairing.js';
import type { ContractValues } from '../contracts/contract-span.js';
import type { BatchCall, LoopDetection } from './loop-port.js';
import type { WriteBatch } from './write-batch.js';

/**
 * How a call row counts (the `part` column, calls/logical-join.ts): a whole call (a call of one span, or the row
 * holding a call joined from several); a part joined into another row's call; a `tasks/get` part whose call is
 * not stored yet. Only whole rows count, in statistics, `/api/calls` and loop detection (call-side.ts).
 */
export const CALL_PART = { whole: 0, joined: 1, waiting: 2 } as const;

/**
 * A stored row's id and the columns its rollups read (for a stored client row a batch pairs), how it counts,
 * and, for a row with logical facts, what the join of parts reads of it (`outcome` is read for those only).
 */
export type StoredCallRow = RollupInput & {
  id: number;
  part: number;
  logical: LogicalCall | null;
  inputHash: string | null;
  outcome: CallOutcome | null;
};

/** A block's row: its spans packed (block-packing.ts), on both backends. */
export type BlockRow = {
  seq: number;
  resourceId: number;
  spanIds: string;
  packed: Uint8Array;
};

/** A model call's row: its trace's row number, time and tokens. */
export type ModelCallRow = {
  seq: number;
  startNs: bigint;
  endNs: bigint;
  inputTokens: number | null;
  outputTokens: number | null;
};

/** The rows of a batch's new spans, and what they add to the shared tables. */
export type BatchRows = {
  inserted: number;
  duplicates: number;
  toolCalls: number;
  /** One row per trace and resource: the spans of the batch, in arrival order. */
  blocks: BlockRow[];
  /** The new rows; a row holding a call joined from parts carries the joined call. `part` is a CALL_PART. */
  calls: { seq: number; call: TracedCall; paired: number; part: number }[];
  /** Stored client rows that this batch's server rows pair: set `paired` on them. */
  pairedIds: number[];
  /**
   * Stored rows that became parts of another row's call: set `part` to CALL_PART.joined, and their facts to
   * `logical` (which names the holder).
   */
  joined: { id: number; logical: LogicalCall }[];
  /** Stored rows holding a call that new parts extended: their time, facts and outcome become the joined call's. */
  extended: { id: number; call: MergedCall }[];
  /** (conversation, trace) pairs of the batch, each once. */
  conversationPairs: { conversationId: string; seq: number }[];
  rollups: Rollup[];
  tallies: Tallies;
  /** Contract catalog reports of the batch (contracts/contract-span.ts). */
  contracts: ContractValues[];
  /** The new calls loop detection counts (server rows, client rows with no server row), with their scopes. */
  counted: BatchCall[];
  /** Model-call rows of the batch's new spans. */
  modelCalls: ModelCallRow[];
};

/** What is stored, as the writer knows it inside the batch's transaction. */
export type StoredState = {
  /** The trace's row number (asked in span order, so a backend may create rows as it goes). */
  seqOf(traceId: string, startNs: bigint): number;
  /** Span ids already stored for a trace; the set is added to as spans are accepted. */
  storedIds(seq: number, traceId: string): Set<string>;
  /** Row id of each of `batch.resources`, by index. */
  resourceIds: number[];
  /** The stored tool calls of a trace that existed before the batch (asked only when the batch has calls in it). */
  storedCalls(seq: number): StoredCall<StoredCallRow>[];
  /**
   * The stored rows, of any trace, that are no joined part and have an open link the batch's parts name
   * (WriteStages.links; calls/logical-call.ts): the parts a later part of one logical call may join across traces
   * and batches (decision 0054). Asked only when the batch has parts.
   */
  linkedCalls(): LinkedCall[];
};

/**
 * What a batch's parts link to, each list sorted and without repeats: stored rows that await one of `awaits` (a
 * new part resumes it), resume one of `resumes` (a new part awaits it), or carry one of `tasks` as their task's
 * hash. `locks` is every hash of the three, sorted: what a writer locks.
 */
export type PartLinks = { awaits: string[]; resumes: string[]; tasks: string[]; locks: string[] };

/** A stored row found by its links, with its trace (it may be one the batch does not touch). */
export type LinkedCall = { traceId: string; seq: number; call: StoredCall<StoredCallRow> };

/** The stages a writer runs inside a batch's transaction. */
export interface WriteStages {
  /**
   * What the batch's parts of logical calls link to (process/links.ts): the writer locks their hashes where writers
   * run at once (PostgreSQL), then reads the stored rows they link to (StoredState.linkedCalls).
   */
  links(batch: WriteBatch): PartLinks;
  /** The batch's rows against what is stored: duplicates dropped, sides paired, rollups and tallies made. */
  rows(batch: WriteBatch, stored: StoredState): BatchRows;
  /** Several batches as one write (process/merge.ts): a writer joins the sealed batches of one write with it. */
  merge(batches: readonly WriteBatch[]): WriteBatch;
  readonly loops: LoopDetection;
}

/**
 * Where a writer gets its stages: a module whose `createWriteStages(options)` builds them, and the options,
 * plain data a writer thread receives by structured clone.
 */
export type WriteStagesSource = { module: string; options: unknown };

/** The stages `source` names, built in this thread. */
export async function loadWriteStages(source: WriteStagesSource): Promise<WriteStages> {
  const loaded: unknown = await import(source.module);
  const create =
    typeof loaded === 'object' && loaded !== null
      ? Reflect.get(loaded, 'createWriteStages')
      : undefined;
  if (typeof create !== 'function')
    throw new Error(`${source.module} does not export createWriteStages`);
  // The module the composition root named builds the stages this contract describes.
  return create(source.options) as WriteStages;
}
