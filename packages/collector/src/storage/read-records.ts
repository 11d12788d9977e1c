// The records the reader side answers with beyond calls, spans and contracts: stored loop flags, the per-tool
// tables (schema versions, input shapes, failing paths), per-tool counts and distributions over a window, and
// what one tool's calls show. Plain data of storage's own; times are nanoseconds since the epoch. Detection
// and the API turn them into flags and pages (detection/read-flags.ts, api/tool-stats.ts, api/tool-page.ts).

import type { Histogram } from '../aggregation/histogram.js';
import type { ResultSizesSummary } from '../aggregation/result-sizes.js';

/** A loop flag as stored (the writer's LoopFlagRecord read back): its evidence as the JSON the writer stored. */
export type StoredFlag = {
  kind: string;
  severity: 'warning' | 'error';
  tool: string;
  traceId: string | null;
  conversationId: string | null;
  count: number;
  firstNs: bigint;
  lastNs: bigint;
  summary: string;
  evidence: Record<string, unknown>;
};

/** One (tool, version, contract hash) seen on calls: when, how often, and the newest trace that carried it. */
export type SchemaVersion = {
  tool: string;
  version: string;
  schemaHash: string;
  firstNs: bigint;
  lastNs: bigint;
  calls: number;
  lastTraceId: string;
};

/** One input shape of a tool's calls, and how many of them the tool refused as invalid. */
export type InputShape = {
  tool: string;
  shape: string;
  firstNs: bigint;
  lastNs: bigint;
  calls: number;
  invalid: number;
};

/** Failures of a tool at one path with one code over a window. */
export type FailingPath = {
  tool: string;
  code: string;
  path: string;
  count: number;
  lastTraceId: string;
  /** Minutes (since the epoch) of the first and last failure at this path in the window. */
  firstMinute: number;
  lastMinute: number;
};

/** A tool's calls over a window, counted once each (call-side.ts), and how many failed with each code. */
export type ToolCallCounts = { name: string; calls: number; codes: Record<string, number> };

/** A tool's result-size percentiles over a window, overall and per version (oldest first). */
export type ToolResultSizes = { name: string } & Pick<
  ResultSizesSummary,
  'resultTokensP95' | 'resultBytesP95' | 'resultSizes'
>;

/** Result sizes of one version's calls over a window ('' for calls without a version). */
export type VersionSizesRecord = {
  version: string;
  /** When its first call in the window was, to the minute for calls read from rollups. */
  firstNs: bigint;
  bytes: Histogram;
  tokens: Histogram;
  maxBytes: number;
  maxTokens: number;
};

/**
 * One tool's calls over a window, each counted once for the side asked (call-side.ts): how many failed and with
 * which code, its versions, its latency histogram (in µs log buckets, aggregation/histogram.ts) and its result
 * sizes per version, oldest first.
 */
export type ToolAggregate = {
  name: string;
  calls: number;
  errors: number;
  codes: Record<string, number>;
  versions: string[];
  latency: Histogram;
  sizes: VersionSizesRecord[];
};

/** The calls of one MCP client: its name, and one version of it when given. */
export type ClientFilter = { name: string; version?: string | undefined };

/**
 * One MCP client's calls of a tool over a window, counted once each (call-side.ts `any`): name and version null
 * where the calls named none.
 */
export type ClientCalls = {
  name: string | null;
  version: string | null;
  calls: number;
  errors: number;
  codes: Record<string, number>;
};

/** The dialects a tool's calls were read from over a window (calls/dialects.ts). */
export type ToolSources = { tool: string; sources: string[] };

/** How often calls of a tool threw one exception type over a window. */
export type ExceptionCount = { tool: string; type: string; count: number };

/** A tool's calls whose result took more than a number of tokens: the newest few, the first, how many. */
export type ResultCrossings = {
  /** Newest first. */
  calls: ResultCrossing[];
  /** The first that crossed. */
  first: ResultCrossing;
  /** How many crossed (counted up to 100,000). */
  count: number;
};

/** A call whose result crossed a size. */
export type ResultCrossing = {
  traceId: string;
  spanId: string;
  version: string | null;
  tokens: number;
  startNs: bigint;
};

/** A call that failed with some code, as drift reads it: where it ran (its conversation, else its trace's), what it sent, when. */
export type FailingToolCall = {
  traceId: string;
  spanId: string;
  conversationId: string | null;
  inputHash: string | null;
  startNs: bigint;
};

/** One tool's calls failing with one code in a window: the newest (at most 500, newest first) and the first. */
export type FailingToolCalls = { newest: FailingToolCall[]; first: FailingToolCall | null };

/** The first and the newest call of a tool (or of one version of it) in a window (null when it had none). */
export type VersionCalls = { first: CallRef | null; newest: CallRef | null };

/** One call as a flag links it: its trace and span, and when it started. */
export type CallRef = { startNs: bigint; traceId: string; spanId: string };

/** Who called a tool over a window: counted calls, the services of each side, conversations, clients. */
export type ToolUsage = {
  calls: number;
  /** 0n when it had no call. */
  firstNs: bigint;
  lastNs: bigint;
  /** Services of its client (caller) spans, and of its server spans. */
  clientServices: string[];
  serverServices: string[];
  conversations: string[];
  /** MCP client names (clientInfo) the calls carried. */
  clients: string[];
  traceIds: string[];
};

/** A reported contract's schemas (the part of it a schema diff reads). */
export type ContractSchema = {
  tool: string;
  schemaHash: string;
  description: string | null;
  inputSchema: unknown;
  outputSchema: unknown;
};
