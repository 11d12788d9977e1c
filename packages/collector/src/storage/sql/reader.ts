// The reader side of the contract, written once over ReadDb for every SQL backend: tool aggregates
// (tool-stats.ts, tool-aggregates.ts), calls, traces and conversations (trace-reader.ts), the per-tool tables and
// stored flags (tool-tables.ts), one tool's calls (tool-call-reads.ts), contracts and search. SQLite runs it on a
// reader thread, PostgreSQL on the pool.

import type { RecordedCall } from '../../calls/call-record.js';
import { logicalFromJson } from '../../calls/logical-call.js';
import type { CallSide } from '../../calls/sides.js';
import type {
  CallFilter,
  CallPage,
  ClientFilter,
  ContractSchema,
  ContractSummary,
  ConversationSpans,
  FailingPath,
  FailingToolCalls,
  InputShape,
  ResultCrossings,
  SchemaVersion,
  SearchHit,
  Series,
  SpanReader,
  StoredFlag,
  StoredSpan,
  ToolCallCounts,
  ToolContract,
  ToolReader,
  ToolResultSizes,
  ToolUsage,
  TraceReader,
  VersionCalls,
} from '../contract.js';
import { callPage } from './call-page.js';
import { toolClients } from './client-stats.js';
import { readContractSchemas, readContractSummaries, readContracts } from './contract-reader.js';
import { big, num, numOrNull, type ReadDb, type Row, text, textOrNull } from './db.js';
import { exceptionTypes } from './exception-reader.js';
import { logicalCalls } from './logical-reader.js';
import { search } from './search-reader.js';
import { timeseries } from './timeseries.js';
import { resultSizes, toolCounts } from './tool-aggregates.js';
import { failingCalls, resultCrossings, toolUsage, versionCalls } from './tool-call-reads.js';
import { toolAggregates, toolSources } from './tool-stats.js';
import * as tables from './tool-tables.js';
import { spansOf, traceSpans } from './trace-reader.js';

/** Most traces a conversation view reads. */
const CONVERSATION_TRACES = 500;

export class SqlReader implements SpanReader {
  readonly #db: ReadDb;

  constructor(db: ReadDb) {
    this.#db = db;
  }

  readonly toolAggregates: ToolReader['toolAggregates'] = (...a) => toolAggregates(this.#db, ...a);
  readonly toolSources: ToolReader['toolSources'] = (...a) => toolSources(this.#db, ...a);
  readonly exceptionTypes: ToolReader['exceptionTypes'] = (...a) => exceptionTypes(this.#db, ...a);
  readonly toolClients: ToolReader['toolClients'] = (...a) => toolClients(this.#db, ...a);

  calls(f: CallFilter): Promise<CallPage> {
    return callPage(this.#db, f, callOf);
  }

  trace(traceId: string): Promise<StoredSpan[] | null> {
    return traceSpans(this.#db, traceId);
  }

  readonly logicalCalls: TraceReader['logicalCalls'] = (ids) => logicalCalls(this.#db, ids, callOf);

  async conversation(id: string): Promise<ConversationSpans | null> {
    const rows = await this.#db.all(
      `SELECT ct.trace_seq AS seq, t.trace_id FROM conversation_traces ct JOIN traces t ON t.seq = ct.trace_seq
        WHERE ct.conversation_id = ? ORDER BY t.first_ns LIMIT ${CONVERSATION_TRACES}`,
      [id],
    );
    if (rows.length === 0) return null;
    return {
      traceIds: rows.map((r) => text(r.trace_id)),
      spans: await spansOf(
        this.#db,
        rows.map((r) => big(r.seq)),
      ),
    };
  }

  timeseries(
    sinceNs: bigint,
    untilNs: bigint,
    stepMs: number,
    tool?: string,
    side?: CallSide,
    byTool?: boolean,
    client?: ClientFilter,
  ): Promise<Series> {
    return timeseries(this.#db, sinceNs, untilNs, stepMs, tool, side, byTool, client);
  }

  search(query: string, sinceNs: bigint): Promise<SearchHit[]> {
    return search(this.#db, query, sinceNs);
  }

  contracts(name: string): Promise<ToolContract[] | null> {
    return readContracts(this.#db, name);
  }

  contractSummaries(tool?: string): Promise<ContractSummary[]> {
    return readContractSummaries(this.#db, tool);
  }

  contractSchemas(tool?: string): Promise<ContractSchema[]> {
    return readContractSchemas(this.#db, tool);
  }

  storedFlags(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<StoredFlag[]> {
    return tables.storedFlags(this.#db, sinceNs, untilNs, tool);
  }

  schemaVersions(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<SchemaVersion[]> {
    return tables.schemaVersions(this.#db, sinceNs, untilNs, tool);
  }

  toolVersions(tool: string): Promise<SchemaVersion[]> {
    return tables.toolVersions(this.#db, tool);
  }

  invalidShapes(sinceNs: bigint, tool?: string): Promise<InputShape[]> {
    return tables.invalidShapes(this.#db, sinceNs, tool);
  }

  inputShapes(tool: string, sinceNs: bigint, untilNs: bigint): Promise<InputShape[]> {
    return tables.inputShapes(this.#db, tool, sinceNs, untilNs);
  }

  failingPaths(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<FailingPath[]> {
    return tables.failingPaths(this.#db, sinceNs, untilNs, tool);
  }

  topFailingPaths(tool: string, sinceNs: bigint, untilNs: bigint): Promise<FailingPath[]> {
    return tables.topFailingPaths(this.#db, tool, sinceNs, untilNs);
  }

  toolKnown(tool: string): Promise<boolean> {
    return tables.toolKnown(this.#db, tool);
  }

  toolCounts(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<ToolCallCounts[]> {
    return toolCounts(this.#db, sinceNs, untilNs, tool);
  }

  resultSizes(sinceNs: bigint, untilNs: bigint, tool?: string): Promise<ToolResultSizes[]> {
    return resultSizes(this.#db, sinceNs, untilNs, tool);
  }

  failingCalls(
    tool: string,
    code: string,
    sinceNs: bigint,
    untilNs: bigint,
  ): Promise<FailingToolCalls> {
    return failingCalls(this.#db, tool, code, sinceNs, untilNs);
  }

  resultCrossings(
    tool: string,
    sinceNs: bigint,
    untilNs: bigint,
    tokens: number,
  ): Promise<ResultCrossings | null> {
    return resultCrossings(this.#db, tool, sinceNs, untilNs, tokens);
  }

  versionCalls(
    tool: string,
    version: string | null | undefined,
    sinceNs: bigint,
    untilNs: bigint,
  ): Promise<VersionCalls> {
    return versionCalls(this.#db, tool, version, sinceNs, untilNs);
  }

  toolUsage(tool: string, sinceNs: bigint, untilNs: bigint): Promise<ToolUsage> {
    return toolUsage(this.#db, tool, sinceNs, untilNs);
  }
}

/** A stored call row as the call model's named fields (calls/call-record.ts). */
export function callOf(r: Row): RecordedCall {
  return {
    traceId: text(r.trace_id),
    spanId: text(r.span_id),
    parentSpanId: textOrNull(r.parent_span_id),
    paired: num(r.paired) === 1,
    tool: text(r.tool),
    version: textOrNull(r.version),
    schemaHash: textOrNull(r.schema_hash),
    attempt: num(r.attempt),
    code: textOrNull(r.code),
    errorType: textOrNull(r.error_type),
    isError: num(r.is_error) === 1,
    reason: textOrNull(r.reason),
    retryable: numOrNull(r.retryable),
    partialEffect: num(r.partial_effect),
    effect: textOrNull(r.effect),
    durationMs: num(r.duration_ms),
    startNs: big(r.start_ns),
    issues: textOrNull(r.issues),
    inputHash: textOrNull(r.input_hash),
    inputShape: textOrNull(r.input_shape),
    outputHash: textOrNull(r.output_hash),
    proxy: num(r.proxy) === 1,
    conversationId: textOrNull(r.conversation_id),
    callId: textOrNull(r.call_id),
    kind: num(r.kind),
    service: textOrNull(r.service),
    source: textOrNull(r.source),
    exceptionType: textOrNull(r.exception_type),
    exceptionMessage: textOrNull(r.exception_message),
    clientName: textOrNull(r.client_name),
    clientVersion: textOrNull(r.client_version),
    resultBytes: numOrNull(r.result_bytes),
    resultTokens: numOrNull(r.result_tokens),
    logical: logicalFromJson(r.logical),
  };
}
