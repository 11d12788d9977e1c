// What loop detectors see: the calls of one scope (a trace, or a conversation across its traces) in start
// order, and the model calls between them, as plain values; and what each detector must provide. Detectors are
// pure functions of these: they import nothing of storage, ingest or the API, so a new loop kind is a new file
// in this folder and one line in index.ts.
import type { SequenceCall, SequenceModelCall } from '../../calls/sequence.js';

/** One tool call of a scope, counted once (a server row, or a client row with no server row known). */
export type ScopeCall = SequenceCall;

/** A model call of the scope (calls/model-call.ts): when it ran and the tokens it read and wrote. */
export type ScopeModelCall = SequenceModelCall;

export type LoopScope = {
  /** Ordered by start time (ties in any stable order). */
  calls: readonly ScopeCall[];
  /** Ordered by start time. */
  modelCalls: readonly ScopeModelCall[];
};

export const LOOP_KINDS = [
  'identical_retry',
  'unrepaired_invalid_input',
  'retry_after_non_retryable',
  'unsafe_write_retry',
  'tool_cycle',
  'argument_churn',
  'polling_no_progress',
  'polling_faster_than_interval',
] as const;
export type LoopKind = (typeof LOOP_KINDS)[number];

/**
 * One call a loop counts as wasted (a call after its first round) and its share of the loop's cost: the time
 * from the latest end of the loop's calls before it to its own end, its result tokens, and the tokens of the
 * model calls that started in that time (wasted.ts). A loop's shares add up to its totals.
 */
export type WastedCall = { spanId: string; ms: number; resultTokens: number; modelTokens: number };

/**
 * What a loop cost: the calls after the first round, their time and result tokens, the model's tokens; and
 * which calls those are (`spans`), so that a sum over several flags counts each call once (waste-total.ts).
 */
export type Wasted = {
  calls: number;
  ms: number;
  resultTokens: number;
  modelTokens: number;
  spans: WastedCall[];
};

export type LoopFlag = {
  kind: LoopKind;
  severity: 'warning' | 'error';
  tool: string;
  /** The repeated input's hash; for a cycle, its first step's. */
  inputHash: string;
  count: number;
  firstNs: bigint;
  lastNs: bigint;
  traceIds: string[];
  spanIds: string[];
  summary: string;
  /** Kind-specific evidence, kept as it is on the stored flag (cycle steps, rounds, the churned hashes). */
  evidence?: {
    cycle?: { tool: string; inputHash: string }[];
    rounds?: number;
    inputHashes?: string[];
    code?: string;
    path?: string;
    wasted?: Wasted;
    /** polling_faster_than_interval: the task's polls, the server's interval and the client's mean interval. */
    polls?: number;
    pollIntervalMs?: number;
    observedPollIntervalMs?: number;
  };
};

export type LoopThresholds = {
  /** Calls with one tool and one input hash that make an identical retry (default 3). */
  identicalRetryMin: number;
  /** Attempts a read may make after RETRYABLE failures before repeating is a loop (default 3). */
  retryCap: number;
  /** Rounds a cycle of 2–5 steps repeats in a row before it is a tool_cycle (default 3). */
  cycleMinRounds: number;
  /** Failing calls of one tool in a row that make an argument_churn (default 4). */
  churnMinCalls: number;
  /** Successful identical calls with one unchanged result that make a polling_no_progress (default 5). */
  pollMinCalls: number;
};

export const DEFAULT_LOOP_THRESHOLDS: LoopThresholds = {
  identicalRetryMin: 3,
  retryCap: 3,
  cycleMinRounds: 3,
  churnMinCalls: 4,
  pollMinCalls: 5,
};

/** One loop detector: the kinds it raises, when a new call may extend one, and the rule itself. */
export type LoopDetector = {
  kinds: readonly LoopKind[];
  /**
   * What its rule must see: `tool` when one tool's calls of the scope decide (a repeat, churn, a poll), so a
   * batch re-reads only those tools' calls; `scope` when it needs every call in order (a cycle of tools).
   */
  reads: 'tool' | 'scope';
  /**
   * How many earlier calls under one of its keys a loop needs before a new call can complete it (1 unless
   * given: a key seen once before): churn needs `churnMinCalls − 1`, so a scope is not re-read for every
   * failing call of a tool that fails now and then; 0 when one call makes the flag (a task polled too fast),
   * whose keys only such calls have.
   */
  priorCalls?: (t: LoopThresholds) => number;
  /**
   * Keys of a call under which it may extend a loop of this kind: a scope is re-read when a new call's key
   * may already be in it (or repeats within the batch). Keys are small strings, prefixed per detector.
   */
  triggerKeys(call: ScopeCall): readonly string[];
  /**
   * triggerKeys of a detector whose calls have one key at most, without the array: what the stage calls for
   * every call of every batch (index.ts callKeys).
   */
  triggerKey?(call: ScopeCall): string | null;
  /**
   * For a detector whose loops are runs of one tool's calls in a row (other tools may interleave): whether a
   * call of the tool ends every run of it (churn: anything but a failing call with an input hash and shape).
   * Its keys then count only the calls since the tool's latest such call, so a tool that fails now and then
   * between successes does not get its calls re-read at every failure.
   */
  endsRun?(call: ScopeCall): boolean;
  /** The flags of one scope's calls. */
  detect(scope: LoopScope, thresholds: LoopThresholds): LoopFlag[];
};
