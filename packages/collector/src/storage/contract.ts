// The storage contract (docs/storage.md): an async writer side and reader side with types of their own, as Jaeger's
// SpanWriter/SpanReader. Routes, CLI, webhook, retention and detection see only this module; SQLite
// (storage/sqlite) and PostgreSQL (storage/postgres) implement it, and one conformance suite runs against both.
// The reader answers neutral questions (calls by scope and time, aggregates, per-tool tables, contracts, spans,
// stored flags), split by role (span-reader.ts); flags and pages are made of those answers outside storage
// (detection/, api/). The record types are plain data of storage's own, times in nanoseconds: the API maps them
// to its shapes (api/schemas.ts), which it alone defines.

import type { RecordedCall } from '../calls/call-record.js';
import type { CallSide } from '../calls/sides.js';
import type { NormalizedSpan } from '../otlp/model.js';
import type { ClientFilter } from './read-records.js';
import type { RecoveryReader } from './recovery-reader.js';
import type { SpanReader } from './span-reader.js';
import type { WriteInput } from './threads/sealed-batch.js';

export type * from './batch-rows.js';
export type * from './loop-port.js';
export type * from './read-records.js';
export type * from './recovery-reader.js';
export type {
  CallReader,
  ContractReader,
  FlagReader,
  SpanReader,
  StoredLogicalCall,
  ToolReader,
  TraceReader,
} from './span-reader.js';
export type { SealedBatches, WriteInput } from './threads/sealed-batch.js';
export type * from './write-batch.js';

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
  /** One MCP client's calls: its name, and one of its versions when given. */
  client?: ClientFilter | undefined;
  sinceNs: bigint;
  untilNs: bigint;
  limit: number;
  cursor?: { startNs: bigint; id: number } | undefined;
};

/** A page of calls, newest first; `nextCursor` continues it (opaque to the caller). */
export type CallPage = { calls: RecordedCall[]; nextCursor: string | null };

export type { RecordedCall } from '../calls/call-record.js';

/** One stored span as read back: the decoded span it was (otlp/model.ts), its attributes as stored. */
export type StoredSpan = NormalizedSpan;

export type ConversationSpans = { traceIds: string[]; spans: StoredSpan[] };

/** Calls and errors per step of a window, every step present; on request the same per tool, aligned. */
export type Series = {
  stepMs: number;
  points: {
    startNs: bigint;
    calls: number;
    errors: number;
    errorsByCode: Record<string, number>;
  }[];
  /** Per tool, aligned with `points` (asked for with `byTool`). */
  tools?: { name: string; calls: number[]; errors: number[] }[];
};

/** What a search term matched: a trace, a conversation, a call (by its call id), a tool or an error code. */
export type SearchHit =
  | { kind: 'trace' | 'conversation' | 'tool' | 'code'; value: string }
  | { kind: 'call'; spanId: string; traceId: string; callId: string; tool: string };

/** One contract of a tool (docs/contracts.md): reported by a contract span, or known only as a hash from calls. */
export type ToolContract = {
  version: string;
  schemaHash: string;
  services: string[];
  firstNs: bigint;
  lastNs: bigint;
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

/** The writer side: what ingest and retention call. */
export interface SpanWriter {
  /**
   * Commits a processed batch (process/batch.ts), or, for a store that takes them (Storage.takesSealed),
   * batches sealed as they were queued (threads/sealed-batch.ts), before resolving (durable as the backend
   * defines it); spans already stored are ignored. In the same transaction the write stages (batch-rows.ts) turn it into rows
   * against what is stored, and re-evaluate the loop flags of the traces and conversations it touched from
   * stored calls, so any collector writing to the same store finds them.
   */
  write(batch: WriteInput): Promise<WriteOutcome>;
  /** Deletes at most `maxTraces` traces (and their calls) that started before the cutoff; returns how many. */
  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number>;
}

export type BackendKind = 'sqlite' | 'postgres';

export interface Storage extends SpanWriter, SpanReader, RecoveryReader {
  readonly backend: BackendKind;
  /** Where the data lives, without credentials (for logs and the start-up banner). */
  readonly location: string;
  /**
   * How many write() calls are worth running at once: SQLite has one writer thread, and 4 (one committing, three
   * waiting on the thread, sqlite-storage.ts says why); PostgreSQL commits batches of different traces in
   * parallel on separate connections.
   */
  readonly concurrentWrites: number;
  /**
   * The most spans one write() should hold, when the store has a bound (the write queue joins what queued
   * meanwhile up to it, else up to 8,192): under a memory limit a writer thread keeps a write's spans in its
   * small young generation until the commit (threads/writer-memory.ts: 1,024 spans at 200 MiB on SQLite, 2,048 on
   * PostgreSQL, whose writes fill first); without a limit neither store sets one.
   */
  readonly writeSpans?: number;
  /**
   * Whether at most one write of less than a whole write's spans (writeSpans, or the queue's own cap) should be
   * in flight, what is queued beside it waiting for its commit unless it makes a whole write, rather than each
   * request going out as it comes (ingest/write-queue.ts, decision 0086). PostgreSQL says yes: its writes are
   * transactions on connections of their own, and started with each request as it came they split the queue
   * into more, smaller transactions, each paying the server's work per transaction. SQLite says no: its writes
   * queue on its one writer thread, where a larger write costs that thread's young generation more than a write
   * less saves.
   */
  readonly fillsWritesFirst?: boolean;
  /**
   * Spans per MiB of the memory limit the write queue may hold for this store, when it has a figure of its own
   * (ingest/memory-limit.ts has the default): under a limit the queue's bound is what caps a wave of requests
   * before the limiter sees it.
   */
  readonly pendingSpansPerMiB?: number;
  /**
   * Whether write() takes batches sealed as they were queued (SealedBatches) besides processed ones: the
   * collector's write queue seals its batches only for a store that says so (both built-in backends), and
   * gives any other store processed batches (WriteBatch), as before decision 0075.
   */
  readonly takesSealed?: boolean;
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
