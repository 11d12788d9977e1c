// The loop-detection port of the write contract (decisions 0015, 0037): the writer reads a batch's loop scopes
// and stores their flags inside the batch's transaction; the detection stage, which the composition root hands
// the writer (batch-rows.ts WriteStages), makes every decision and drives the work as steps, one driver that
// both backends run: SQLite in its synchronous transaction, PostgreSQL awaiting each statement. Storage never
// imports the stage.
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

/** Read a scope's stored calls (of `check.tools` only, when it names some) into `answer`. */
export type ScopeCallsRead = { step: 'calls'; check: LoopScopeRef; answer: CallSequence | null };
/** Read what the scope's flags need beyond its calls into `answer` (asked only when there are flags). */
export type ScopeContextRead = {
  step: 'context';
  check: LoopScopeRef;
  sequence: CallSequence;
  answer: SequenceContext | null;
};
/** Replace the scope's stored loop flags (of the check's kinds and tools) from `fromNs` on with `flags`. */
export type ScopeFlagsWrite = {
  step: 'flags';
  check: LoopScopeRef;
  fromNs: bigint | null;
  flags: LoopFlagRecord[];
};
/** Store the conversations' changed key filters: each id with the bytes to store. */
export type FiltersWrite = { step: 'filters'; filters: Map<string, Uint8Array> };

/** One step of a batch's loop work: a read the writer answers, or a write it makes. */
export type LoopStep = ScopeCallsRead | ScopeContextRead | ScopeFlagsWrite | FiltersWrite;

export interface BatchLoopDetection {
  /** The conversations whose stored key filters the steps need. */
  readonly conversations: readonly string[];
  /**
   * The batch's loop work, given which traces existed before the batch and the stored filters (as read for this
   * batch: the stage takes their bytes over and may change them in place). The writer takes each step in turn
   * (`for … of`), sets a read's `answer` before taking the next, and makes each write. Asked once per batch.
   */
  steps(
    traceExisted: (traceId: string) => boolean,
    filters: ReadonlyMap<string, unknown>,
  ): Iterable<LoopStep>;
}
