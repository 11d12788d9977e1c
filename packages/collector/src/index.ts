// Public API of @toolscope/collector: what users call. The collector (startCollector), the CLI (runCli), and a
// store opened directly (openStorage) with the types its methods take and give. The JSON API's shapes and
// schemas are at the browser-safe subpath `@toolscope/collector/schemas`, and only there. Every export here is
// public contract: add, never rename; internals (the stages, the write queue, decoders, the app builder,
// detectors, how flags and pages are made) stay internal.

export type { ToolDetail } from './api/tool-page.js';
export { main as runCli } from './cli/main.js';
export type { Collector, CollectorOptions } from './collector.js';
export { startCollector } from './collector.js';
export type { FlagFilter } from './detection/read-flags.js';
export type { CollectorErrorCode } from './errors.js';
export { COLLECTOR_ERRORS, CollectorError } from './errors.js';
export type { AttrMap, AttrValue } from './otlp/model.js';
export type { OpenOptions } from './pipeline.js';
export { openStorage } from './pipeline.js';
export type {
  BackendKind,
  CallFilter,
  CallPage,
  CallReader,
  ContractReader,
  ContractSummary,
  ConversationSpans,
  ExceptionCount,
  FlagReader,
  RecordedCall,
  SealedBatches,
  SearchHit,
  Series,
  SpanReader,
  SpanWriter,
  Storage,
  StoredFlag,
  StoredSpan,
  ToolAggregate,
  ToolContract,
  ToolReader,
  ToolSources,
  TraceReader,
  WriteBatch,
  WriteInput,
  WriteOutcome,
} from './storage/contract.js';
export { COLLECTOR_VERSION } from './version.js';
/** @deprecated The API's `Call` (`@toolscope/collector/schemas`); storage's reader gives `RecordedCall`s. */
export type CallRecord = import('./api/schemas.js').Call;
/** @deprecated The API's `ToolStats` (`@toolscope/collector/schemas`); storage gives `ToolAggregate`s. */
export type ToolSummary = import('./api/schemas.js').ToolStats;
