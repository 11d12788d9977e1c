// The loop-detection port of the write contract (decision 0015): the writer reads a batch's loop scopes and
// stores their flags inside the batch's transaction; the detection stage, which the composition root hands the
// writer (batch-rows.ts WriteStages), makes every decision. Storage never imports the stage.
import type { SequenceCall, SequenceModelCall } from '../calls/sequence.js';

export type { SequenceCall, SequenceModelCall } from '../calls/sequence.js';

/** The kinds of loop scope: one trace, or one conversation across its traces. */
export type LoopScopeKind = 'trace' | 'conversation';
/**
 * A scope to re-read: its calls (of `tools` only, when given), the stored flags of `keep` (the detectors' kinds
 * that may supersede those re-evaluated), and which stored flags the evaluation replaces: of `kinds` (all when
 * null) and, with `tools`, of those tools only.
 */
export type LoopScopeRef = {
  scope: LoopScopeKind;
  key: string;
  tools: string[] | null;
  kinds: readonly string[] | null;
  keep: readonly string[];
};

/** A scope's stored calls (the newest, when it has more than a read takes), in start order. */
export type CallSequence = {
  calls: SequenceCall[];
  /** When the read stopped short of the scope's oldest calls: the start of the oldest call read. */
  fromNs: bigint | null;
};

/** What a scope's flags need beyond its calls, read only when there are flags. */
export type SequenceContext = {
  /** The scope's model calls from its oldest call read on, in start order. */
  modelCalls: SequenceModelCall[];
  /** The scope's stored flags of the check's `keep` kinds: their kinds and span ids. */
  known: { kind: string; spanIds: string[] }[];
};

/** A loop flag as the writer stores it. */
export type LoopFlagRecord = {
  kind: string;
  severity: 'warning' | 'error';
  tool: string;
  inputHash: string;
  count: number;
  firstNs: bigint;
  lastNs: bigint;
  traceIds: string[];
  spanIds: string[];
  summary: string;
  evidence?: Record<string, unknown>;
};

/** A new call of a batch that loop detection counts, with where it belongs. */
export type BatchCall = { call: SequenceCall; conversationId: string | null };

/**
 * Loop detection as the writer runs it inside a batch's transaction (the detection stage implements it): the
 * writer does the reading and writing, the stage every decision.
 */
export interface LoopDetection {
  forBatch(calls: readonly BatchCall[]): BatchLoopDetection;
}

export interface BatchLoopDetection {
  /** The conversations whose stored key filters the checks need. */
  readonly conversations: readonly string[];
  /**
   * The scopes to re-read, given which traces existed before the batch and the stored filters (as read for this
   * batch: the stage takes their bytes over and may change them in place). Asked once per batch.
   */
  checks(
    traceExisted: (traceId: string) => boolean,
    filters: ReadonlyMap<string, unknown>,
  ): LoopScopeRef[];
  /**
   * The scope's loop flags, replacing its stored ones from `sequence.fromNs` on; `context` when it asked for it
   * (most re-reads find no loop, and so read nothing more than the calls).
   */
  evaluate(
    check: LoopScopeRef,
    sequence: CallSequence,
    context?: SequenceContext,
  ): LoopFlagRecord[] | 'needs-context';
  /** Filters to write back (after every evaluate): the conversation's id and the bytes to store. */
  changedFilters(): Map<string, Uint8Array>;
}
