// Public API of @toolscope/collector. Every export here is public contract: add, never rename.

export type { Webhook, WebhookOptions } from './alerts/webhook.js';
export { flagKey, startWebhook } from './alerts/webhook.js';
export type { AppOptions } from './api/app.js';
export { buildApp } from './api/app.js';
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
export { DEFAULT_DASHBOARD_DIR, SECURITY_HEADERS } from './api/static-routes.js';
export type { ToolDetail } from './api/tool-page.js';
export { toolPage } from './api/tool-page.js';
export { main as runCli } from './cli/main.js';
export type { Collector, CollectorOptions } from './collector.js';
export { startCollector } from './collector.js';
export type { FlagFilter } from './detection/read-flags.js';
export { flagsOf, readFlags } from './detection/read-flags.js';
export { DEFAULT_DRIFT_THRESHOLDS, detectDrift } from './detectors/drift.js';
export type { Flag, FlagsResponse } from './detectors/flag.js';
export { FLAG_KINDS, flagSchema, flagsResponseSchema } from './detectors/flag.js';
export type { LoopFlag, LoopThresholds } from './detectors/loops/index.js';
export { DEFAULT_LOOP_THRESHOLDS } from './detectors/loops/index.js';
export type { CollectorErrorCode } from './errors.js';
export { COLLECTOR_ERRORS, CollectorError } from './errors.js';
export type { BodyBudgetStats } from './ingest/body-budget.js';
export { BodyBudget } from './ingest/body-budget.js';
export { WriteQueue } from './ingest/write-queue.js';
export { decodeJson } from './otlp/decode-json.js';
export { decodeProtobuf } from './otlp/decode-proto.js';
export type {
  AttrMap,
  AttrValue,
  DecodedBatch,
  DecodeResult,
  NormalizedSpan,
} from './otlp/model.js';
export type {
  BackendKind,
  CallFilter,
  CallPage,
  CallRecord,
  ConversationSpans,
  SearchHit,
  Series,
  SpanReader,
  SpanWriter,
  Storage,
  StoredSpan,
  ToolSummary,
  WriteOutcome,
} from './storage/contract.js';
export type { OpenOptions } from './storage/open.js';
export { isPostgresUrl, openStorage } from './storage/open.js';
export type { SqliteOptions } from './storage/sqlite/sqlite-storage.js';
export { openSqliteStorage } from './storage/sqlite/sqlite-storage.js';
export { COLLECTOR_VERSION } from './version.js';
