// The storage contract (DESIGN.md §5): an async writer side and reader side with types of their own, as Jaeger's
// SpanWriter/SpanReader. Routes, CLI, webhook, retention and detection see only this module; SQLite
// (storage/sqlite) and PostgreSQL (storage/postgres) implement it, and one conformance suite runs against both.
// The reader answers neutral questions (calls by scope and time, aggregates, per-tool tables, contracts, spans,
// stored flags); flags and pages are made of those answers outside storage (detection/, api/). The record types
// are plain data of storage's own.

import type { CallRecord } from '../calls/call-record.js';
import type { SequenceCall, SequenceModelCall } from '../calls/sequence.js';
import type { CallSide } from '../calls/sides.js';
import type { NormalizedSpan } from '../otlp/model.js';
import type { RecoveryReader } from './recovery-reader.js';
import type { VersionResultSizes } from './result-sizes.js';
import type { SpanReader } from './span-reader.js';

export type * from './read-records.js';
export type * from './recovery-reader.js';
export type { SpanReader } from './span-reader.js';

/** What a write did: spans stored, spans already stored (exporter retries), tool calls among the stored. */
export type WriteOutcome = { inserted: number; duplicates: number; toolCalls: number };

export type CallFilter = {
  tool?: string | undefined;
  code?: string | undefined;
  version?: string | undefined;
  traceId?: string | undefined;
  conversationId?: string | undefined;
  callId?: string | undefined;
  /** true: failing calls only; false: successful calls only. */
  errors?: boolean | undefined;
  /** Which rows: `any` (default) each call once, `server` or `client` one side's rows (call-side.ts). */
  side?: CallSide | undefined;
  sinceNs: bigint;
  untilNs: bigint;
  limit: number;
  cursor?: { startNs: bigint; id: number } | undefined;
};

export type { CallIssue, CallRecord } from '../calls/call-record.js';

export type CallPage = { calls: CallRecord[]; nextCursor: string | null };

type Attributes = Record<string, unknown>;

/** One stored span as read back. */
export type StoredSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  startTime: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  durationMs: number;
  status: { code: number; message: string };
  attributes: Attributes;
  events: { timeUnixNano: string; name: string; attributes: Attributes }[];
  links: { traceId: string; spanId: string; attributes: Attributes }[];
  resource: Attributes;
  scope: { name: string; version: string };
  truncatedAttributes: string[];
  droppedAttributes: number;
};

export type ConversationSpans = { traceIds: string[]; spans: StoredSpan[] };

/** Per-tool statistics over a window. */
export type ToolSummary = {
  name: string;
  /** Weight of its newest reported contract's tools/list entry (bytes, o200k tokens); null when none. */
  schemaBytes: number | null;
  schemaTokens: number | null;
  /** The most frequent exception types of its failures in the window (at most 5). */
  exceptions: { type: string; count: number }[];
  /** Its newest reported contract's deprecation, or null. */
  deprecated: { replacedBy: string | null; sunset: string | null } | null;
  /** The dialects its calls were read from in the window (calls/dialects.ts). */
  sources: string[];
  calls: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  codes: Record<string, number>;
  versions: string[];
  /**
   * What its results cost the model's context, over all its calls in the window that carried a
   * size: bytes exact per call, tokens estimated; percentiles from 5 %-wide buckets. Null when none did.
   */
  resultBytesP50: number | null;
  resultBytesP95: number | null;
  resultBytesMax: number | null;
  resultTokensP50: number | null;
  resultTokensP95: number | null;
  resultTokensMax: number | null;
  /** The same per version (null: calls without one), oldest first by their first call in the window. */
  resultSizes: VersionResultSizes[];
};

/** One contract of a tool (DESIGN.md §7): reported by a contract span, or known only as a hash from calls. */
export type ToolContract = {
  version: string;
  schemaHash: string;
  services: string[];
  firstSeen: string;
  lastSeen: string;
  description: string | null;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
  /** UTF-8 bytes and approximate tokens (o200k) of the tool's tools/list entry; null when never reported. */
  schemaBytes: number | null;
  schemaTokens: number | null;
  deprecated: { replacedBy: string | null; sunset: string | null } | null;
  /** Whether a contract span was received (false: only calls named this hash). */
  reported: boolean;
  calls: number;
};

/** The newest reported contract of each tool: its weight and deprecation. */
export type ContractSummary = {
  tool: string;
  version: string;
  schemaHash: string;
  services: string[];
  schemaBytes: number;
  schemaTokens: number;
  deprecated: { replacedBy: string | null; sunset: string | null } | null;
  lastNs: bigint;
  /** Per service that served any contract of the tool: the weight of the newest one it served. */
  served: { service: string; schemaBytes: number; schemaTokens: number }[];
};

export type Series = {
  stepMs: number;
  points: { t: string; calls: number; errors: number; errorsByCode: Record<string, number> }[];
  /** Per tool, aligned with `points` (asked for with `byTool`). */
  tools?: { name: string; calls: number[]; errors: number[] }[];
};

export type SearchHit = {
  kind: 'trace' | 'conversation' | 'call' | 'tool' | 'code';
  value: string;
  label: string;
  traceId?: string;
};

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

/** The writer side: what ingest and retention call. */
export interface SpanWriter {
  /**
   * Commits a batch before resolving (durable as the backend defines it); spans already stored are ignored.
   * Retry-loop flags of the traces and conversations it touched are re-evaluated from stored calls in the
   * same transaction, so any collector writing to the same store finds them.
   */
  write(spans: NormalizedSpan[]): Promise<WriteOutcome>;
  /** Deletes at most `maxTraces` traces (and their calls) that started before the cutoff; returns how many. */
  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number>;
}

export type BackendKind = 'sqlite' | 'postgres';

export interface Storage extends SpanWriter, SpanReader, RecoveryReader {
  readonly backend: BackendKind;
  /** Where the data lives, without credentials (for logs and the start-up banner). */
  readonly location: string;
  /**
   * How many write() calls are worth running at once: SQLite has one writer, so 2 (one committing while the
   * next is prepared); PostgreSQL commits batches of different traces in parallel on separate connections.
   */
  readonly concurrentWrites: number;
  /** Whether the store is reachable, migrated and writable (GET /readyz); never throws. */
  ready(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Bytes the store takes on disk (for /metrics). */
  sizeBytes(): Promise<number>;
  /**
   * The settings of the stages that read this store (detection's read thresholds), as JSON text those stages
   * define and parse: what the store remembers when it was opened to recall them, else what it was given.
   */
  readSettings(): string | null;
  close(): Promise<void>;
}
