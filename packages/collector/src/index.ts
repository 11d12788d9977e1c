// Public API of @toolscope/collector: what users call. The collector (startCollector), the CLI (runCli), a store
// opened directly (openStorage) with the types its methods take and give, and the JSON API's shapes and schemas
// (also at the browser-safe subpath `@toolscope/collector/schemas`). Every export here is public contract: add,
// never rename; internals (the write queue, decoders, the app builder, detectors) stay internal.

export type {
  Call,
  CallsResponse,
  ConversationResponse,
  ErrorResponse,
  SearchResponse,
  SearchResult,
  SpanOut,
  TimeseriesResponse,
  ToolDetailResponse,
  ToolStats,
  ToolsResponse,
  TraceResponse,
} from './api/schemas.js';
export {
  callSchema,
  callsResponseSchema,
  conversationResponseSchema,
  errorResponseSchema,
  searchResponseSchema,
  spanSchema,
  timeseriesResponseSchema,
  toolDetailResponseSchema,
  toolStatsSchema,
  toolsResponseSchema,
  traceResponseSchema,
} from './api/schemas.js';
export type { ToolDetail } from './api/tool-page.js';
export { toolPage } from './api/tool-page.js';
export { main as runCli } from './cli/main.js';
export type { Collector, CollectorOptions } from './collector.js';
export { startCollector } from './collector.js';
export type { FlagFilter } from './detection/read-flags.js';
export { flagsOf, readFlags } from './detection/read-flags.js';
export type { Flag, FlagsResponse } from './detectors/flag.js';
export { FLAG_KINDS, flagSchema, flagsResponseSchema } from './detectors/flag.js';
export type { CollectorErrorCode } from './errors.js';
export { COLLECTOR_ERRORS, CollectorError } from './errors.js';
export type { AttrMap, AttrValue, NormalizedSpan } from './otlp/model.js';
export type { OpenOptions } from './pipeline.js';
export { openStorage } from './pipeline.js';
export type {
  BackendKind,
  CallFilter,
  CallPage,
  ConversationSpans,
  RecordedCall,
  SearchHit,
  Series,
  SpanReader,
  SpanWriter,
  Storage,
  StoredSpan,
  WriteOutcome,
} from './storage/contract.js';
/** @deprecated The API's `Call` (`@toolscope/collector/schemas`); storage's reader gives `RecordedCall`s. */
export type CallRecord = import('./api/schemas.js').Call;
/** @deprecated The API's `ToolStats` (`@toolscope/collector/schemas`); storage gives `ToolAggregate`s. */
export type ToolSummary = import('./api/schemas.js').ToolStats;
export { isPostgresUrl } from './storage/open.js';
export { COLLECTOR_VERSION } from './version.js';
