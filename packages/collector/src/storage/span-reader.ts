// The reader side of the storage contract (contract.ts): neutral questions every backend answers, by role (calls,
// tools, contracts, flags, traces: a consumer takes the roles it reads), and the list of its methods that a
// backend's handle forwards (the SQLite reader thread, the backends' objects).
import type { RecordedCall } from '../calls/call-record.js';
import type { CallSide } from '../calls/sides.js';
import type {
  CallFilter,
  CallPage,
  ContractSummary,
  ConversationSpans,
  SearchHit,
  Series,
  StoredSpan,
  ToolContract,
} from './contract.js';
import type {
  ClientCalls,
  ClientFilter,
  ContractSchema,
  ExceptionCount,
  FailingPath,
  FailingToolCalls,
  InputShape,
  ResultCrossings,
  SchemaVersion,
  StoredFlag,
  ToolAggregate,
  ToolCallCounts,
  ToolResultSizes,
  ToolSources,
  ToolUsage,
  VersionCalls,
} from './read-records.js';

/** Calls, one by one: pages by scope and time, and what one tool's calls show. */
export interface CallReader {
  calls(filter: CallFilter): Promise<CallPage>;
  /** The calls of `tool` failing with `code` in the window: the newest 500 and the first. */
  failingCalls(
    tool: string,
    code: string,
    sinceNs: bigint,
    untilNs: bigint,
  ): Promise<FailingToolCalls>;
  /** A tool's calls in the window whose result took more than `tokens`, or null when none did. */
  resultCrossings(
    tool: string,
    sinceNs: bigint,
    untilNs: bigint,
    tokens: number,
  ): Promise<ResultCrossings | null>;
  /** The first and newest call of a tool's version in the window (null: calls without a version; undefined: any). */
  versionCalls(
    tool: string,
    version: string | null | undefined,
    sinceNs: bigint,
    untilNs: bigint,
  ): Promise<VersionCalls>;
  /** Who called a tool in the window. */
  toolUsage(tool: string, sinceNs: bigint, untilNs: bigint): Promise<ToolUsage>;
}

/** Tools over a window: aggregates from the rollups, and the per-tool tables. */
export interface ToolReader {
  /**
   * Each tool's calls of `side` (default any) over the window, or of one tool: counts and histograms; with
   * `client`, of that MCP client's calls only.
   */
  toolAggregates(
    sinceNs: bigint,
    untilNs: bigint,
    tool?: string,
    side?: CallSide,
    client?: ClientFilter,
  ): Promise<ToolAggregate[]>;
  /** One tool's calls over the window per MCP client (name and version), each counted once. */
  toolClients(tool: string, sinceNs: bigint, untilNs: bigint): Promise<ClientCalls[]>;
  /** The dialects each tool's calls of `side` were read from in the window. */
  toolSources(
    sinceNs: bigint,
    untilNs: bigint,
    side: CallSide,
    tool?: string,
  ): Promise<ToolSources[]>;
  /**
   * The most frequent exception types per tool of its calls of `side` in the window (at most 5 each); with
   * `client`, of that MCP client's calls only.
   */
  exceptionTypes(
    sinceNs: bigint,
    untilNs: bigint,
    tool?: string,
    side?: CallSide,
    client?: ClientFilter,
  ): Promise<ExceptionCount[]>;
  /**
   * Calls and errors (split by code) per step, of all tools or one; with `byTool`, also per tool; with
   * `client`, of that MCP client's calls only (from the client rollups).
   */
  timeseries(
    sinceNs: bigint,
    untilNs: bigint,
    stepMs: number,
    tool?: string,
    side?: CallSide,
    byTool?: boolean,
    client?: ClientFilter,
  ): Promise<Series>;
  /** Calls per tool and code over the window (from the rollups). */
  toolCounts(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<ToolCallCounts[]>;
  /** Result sizes per tool over the window, overall and per version. */
  resultSizes(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<ToolResultSizes[]>;
  /** Schema versions seen on calls in the window. */
  schemaVersions(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<SchemaVersion[]>;
  /** One tool's schema versions over all time, oldest first, at most 200. */
  toolVersions(tool: string): Promise<SchemaVersion[]>;
  /** Input shapes with refused calls seen since `sinceNs`, at most 500. */
  invalidShapes(sinceNs: bigint, tool?: string): Promise<InputShape[]>;
  /** One tool's input shapes seen in the window, most used first, at most 50. */
  inputShapes(tool: string, sinceNs: bigint, untilNs: bigint): Promise<InputShape[]>;
  /** Failures per tool, code and path in the minutes of the window. */
  failingPaths(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<FailingPath[]>;
  /** One tool's most frequent failing paths in the minutes of the window, at most 25. */
  topFailingPaths(tool: string, sinceNs: bigint, untilNs: bigint): Promise<FailingPath[]>;
  /** Whether any call of the tool was ever counted. */
  toolKnown(tool: string): Promise<boolean>;
}

/** The contract catalog. */
export interface ContractReader {
  /** Every contract of a tool, oldest first, or null for a tool never seen. */
  contracts(name: string): Promise<ToolContract[] | null>;
  /** The newest reported contract of every tool (or of one). */
  contractSummaries(tool?: string): Promise<ContractSummary[]>;
  /** The schemas of every reported contract (or of one tool's), at most 2,000. */
  contractSchemas(tool?: string): Promise<ContractSchema[]>;
}

/** The loop flags the writers stored. */
export interface FlagReader {
  /** Stored loop flags active in the window, newest last activity first, at most 1,000. */
  storedFlags(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<StoredFlag[]>;
}

/** A stored call row with logical facts, and how it counts (batch-rows.ts CALL_PART). */
export type StoredLogicalCall = { call: RecordedCall; part: number };

/** Spans: of a trace, of a conversation, and what a search term names. */
export interface TraceReader {
  /** Spans of one trace in start order, or null when the trace is unknown. */
  trace(traceId: string): Promise<StoredSpan[] | null>;
  /**
   * The stored calls of the traces `traceIds` that carry logical facts (calls/logical-call.ts), at most 10,000:
   * the writers' join of the parts of logical calls, across traces (decision 0054), as the trace page reads it.
   */
  logicalCalls(traceIds: string[]): Promise<StoredLogicalCall[]>;
  conversation(id: string): Promise<ConversationSpans | null>;
  /** What a search term can mean: trace, conversation, call id, tool, error code. */
  search(query: string, sinceNs: bigint): Promise<SearchHit[]>;
}

/** The whole reader side: what the JSON API, `report`, the webhook and detection at read time come from. */
export interface SpanReader
  extends CallReader,
    ToolReader,
    ContractReader,
    FlagReader,
    TraceReader {}

// Every method of SpanReader, once (a method added to the interface and not here fails to compile).
const METHODS: Record<keyof SpanReader, true> = {
  toolAggregates: true,
  toolClients: true,
  toolSources: true,
  exceptionTypes: true,
  calls: true,
  trace: true,
  logicalCalls: true,
  conversation: true,
  timeseries: true,
  search: true,
  contracts: true,
  contractSummaries: true,
  contractSchemas: true,
  storedFlags: true,
  schemaVersions: true,
  toolVersions: true,
  invalidShapes: true,
  inputShapes: true,
  failingPaths: true,
  topFailingPaths: true,
  toolCounts: true,
  failingCalls: true,
  resultSizes: true,
  toolKnown: true,
  resultCrossings: true,
  versionCalls: true,
  toolUsage: true,
};

/** The names of SpanReader's methods: what a handle that forwards reads (a thread, a backend object) forwards. */
export const READER_METHODS = Object.keys(METHODS) as (keyof SpanReader)[];

/** The reader methods of `reader` as plain functions bound to it, for a backend object to spread. */
export function readerMethods(reader: SpanReader): SpanReader {
  return forwardReads((method, args) =>
    (reader[method] as (...a: unknown[]) => Promise<unknown>).apply(reader, args),
  );
}

/** A SpanReader whose every method is `send(method, args)`, answered as that method would answer. */
export function forwardReads(
  send: (method: keyof SpanReader, args: unknown[]) => Promise<unknown>,
): SpanReader {
  const out: Partial<Record<keyof SpanReader, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of READER_METHODS) out[method] = (...args) => send(method, args);
  // Every method is set just above, each answering as its own method does.
  return out as unknown as SpanReader;
}
