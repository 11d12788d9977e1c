// The reader side of the contract, written once over ReadDb for every SQL backend: tool statistics
// (tool-stats.ts), calls, traces, conversations, flags (flag-reader.ts), the tool page and search
// (detail-reader.ts). SQLite runs it on a reader thread, PostgreSQL on the pool.

import { type CallRecord, callRecordOf } from '../../calls/call-record.js';
import type { CallSide } from '../../calls/sides.js';
import type { DriftThresholds } from '../../detectors/drift.js';
import type { Flag } from '../../detectors/flag.js';
import { unpackBlock } from '../block-packing.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import { slotWhere } from '../call-slot.js';
import type {
  CallFilter,
  CallPage,
  ContractSummary,
  ConversationSpans,
  FlagFilter,
  SearchHit,
  Series,
  SpanReader,
  StoredSpan,
  ToolContract,
  ToolDetail,
  ToolSummary,
} from '../contract.js';
import { decodeSpans } from '../span-codec.js';
import { CODE_KEY_SQL } from './code-sql.js';
import { readContractSummaries, readContracts } from './contract-reader.js';
import {
  big,
  num,
  numOrNull,
  type ReadDb,
  type Row,
  type SqlValue,
  text,
  textOrNull,
} from './db.js';
import { search, toolDetail } from './detail-reader.js';
import { exceptionTypes } from './exception-reader.js';
import { readFlags } from './flag-reader.js';
import { timeseries } from './timeseries.js';
import { aggregateTools, sourcesOf, statsOf } from './tool-stats.js';

/** Most traces a conversation view reads, and most blocks per trace. */
const CONVERSATION_TRACES = 500;
const BLOCKS_PER_TRACE = 10_000;
const TRACES_PER_QUERY = 100;

export class SqlReader implements SpanReader {
  readonly #db: ReadDb;
  readonly #drift: DriftThresholds;

  constructor(db: ReadDb, drift: DriftThresholds) {
    this.#db = db;
    this.#drift = drift;
  }

  async tools(
    sinceNs: bigint,
    untilNs: bigint,
    tool?: string,
    side: CallSide = 'any',
  ): Promise<ToolSummary[]> {
    const sources = await sourcesOf(this.#db, sinceNs, untilNs, side, tool);
    const exceptions = await exceptionTypes(this.#db, sinceNs, untilNs, tool, side);
    const contracts = new Map(
      (await readContractSummaries(this.#db, tool)).map((c) => [c.tool, c]),
    );
    return [...(await aggregateTools(this.#db, sinceNs, untilNs, tool, side)).entries()]
      .map(([name, a]) =>
        statsOf(name, a, sources.get(name), contracts.get(name), exceptions.get(name)),
      )
      .sort((x, y) => y.calls - x.calls || (x.name < y.name ? -1 : 1));
  }

  async calls(f: CallFilter): Promise<CallPage> {
    const where: string[] = ['start_ns >= ?', 'start_ns < ?', sideWhere(f.side ?? 'any')];
    const args: SqlValue[] = [f.sinceNs, f.untilNs];
    const add = (clause: string, ...values: SqlValue[]) => {
      where.push(clause);
      args.push(...values);
    };
    if (f.tool !== undefined) add(TOOL_IS, f.tool);
    if (f.version !== undefined) add('version = ?', f.version);
    if (f.code !== undefined) {
      if (f.code === 'OK') add('is_error = 0');
      else add(`${CODE_KEY_SQL} = ?`, f.code);
    }
    if (f.callId !== undefined)
      add(
        `${slotWhere(f.sinceNs, f.untilNs)} AND ${this.#db.byteOrder('call_id')} = ? AND call_id IS NOT NULL`,
        f.callId,
      );
    if (f.errors !== undefined) add(f.errors ? 'is_error = 1' : 'is_error = 0');
    if (f.traceId !== undefined)
      add('trace_seq = (SELECT seq FROM traces WHERE trace_id = ?)', f.traceId);
    if (f.conversationId !== undefined)
      add(
        'trace_seq IN (SELECT trace_seq FROM conversation_traces WHERE conversation_id = ?) AND conversation_id = ?',
        f.conversationId,
        f.conversationId,
      );
    if (f.cursor)
      add(
        '(start_ns < ? OR (start_ns = ? AND id < ?))',
        f.cursor.startNs,
        f.cursor.startNs,
        f.cursor.id,
      );
    const rows = await this.#db.all(
      `SELECT * FROM tool_calls WHERE ${where.join(' AND ')} ORDER BY start_ns DESC, id DESC LIMIT ?`,
      [...args, f.limit + 1],
    );
    const page = rows.slice(0, f.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > f.limit && last
        ? Buffer.from(`${big(last.start_ns)}:${big(last.id)}`).toString('base64url')
        : null;
    return { calls: page.map(callOf), nextCursor };
  }

  async trace(traceId: string): Promise<StoredSpan[] | null> {
    const rows = await this.#db.all('SELECT seq FROM traces WHERE trace_id = ?', [traceId]);
    const row = rows[0];
    if (!row) return null;
    return this.#spansOf([big(row.seq)]);
  }

  async conversation(id: string): Promise<ConversationSpans | null> {
    const rows = await this.#db.all(
      `SELECT ct.trace_seq AS seq, t.trace_id FROM conversation_traces ct JOIN traces t ON t.seq = ct.trace_seq
        WHERE ct.conversation_id = ? ORDER BY t.first_ns LIMIT ${CONVERSATION_TRACES}`,
      [id],
    );
    if (rows.length === 0) return null;
    return {
      traceIds: rows.map((r) => text(r.trace_id)),
      spans: await this.#spansOf(rows.map((r) => big(r.seq))),
    };
  }

  flags(sinceNs: bigint, untilNs: bigint, filter: FlagFilter): Promise<Flag[]> {
    return readFlags(this.#db, sinceNs, untilNs, filter, this.#drift);
  }

  toolDetail(name: string, sinceNs: bigint, untilNs: bigint): Promise<ToolDetail | null> {
    return toolDetail(this.#db, name, sinceNs, untilNs);
  }

  timeseries(
    sinceNs: bigint,
    untilNs: bigint,
    stepMs: number,
    tool?: string,
    side?: CallSide,
    byTool?: boolean,
  ): Promise<Series> {
    return timeseries(this.#db, sinceNs, untilNs, stepMs, tool, side, byTool);
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

  async #spansOf(seqs: bigint[]): Promise<StoredSpan[]> {
    const spans: StoredSpan[] = [];
    // One query per chunk of traces, not one per trace: a round trip costs more than a row on PostgreSQL.
    for (let i = 0; i < seqs.length; i += TRACES_PER_QUERY) {
      const chunk = seqs.slice(i, i + TRACES_PER_QUERY);
      const rows = await this.#db.all(
        `SELECT t.trace_id, b.spans, b.packed, r.attributes AS resource
           FROM span_blocks b JOIN traces t ON t.seq = b.trace_seq JOIN resources r ON r.id = b.resource_id
          WHERE b.trace_seq IN (${chunk.map(() => '?').join(', ')}) ORDER BY b.trace_seq, b.id
          LIMIT ${BLOCKS_PER_TRACE * chunk.length}`,
        chunk,
      );
      const damaged = (what: string) => this.#db.damaged(what);
      for (const row of rows) {
        const traceId = text(row.trace_id);
        // Packed since SQLite v10 / PostgreSQL v6; JSON text in `spans` before (decision 0011).
        const json = unpackBlock(row.packed ?? row.spans, (what) =>
          damaged(`${what} in trace ${traceId}; its spans are left out`),
        );
        if (json === null) continue;
        spans.push(...decodeSpans(traceId, json, parseJson(row.resource, {}), damaged));
      }
    }
    // Equal start times are common (clock granularity): then a parent comes before its children.
    const depth = depthsOf(spans);
    const start = (s: StoredSpan) => BigInt(s.startTimeUnixNano);
    spans.sort((a, b) => {
      const x = start(a);
      const y = start(b);
      return x < y ? -1 : x > y ? 1 : (depth.get(a.spanId) ?? 0) - (depth.get(b.spanId) ?? 0);
    });
    return spans;
  }
}

function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

/** Depth of each span in its trace's tree (roots 0); cycles and missing parents count as roots. */
function depthsOf(rows: StoredSpan[]): Map<string, number> {
  const parent = new Map(rows.map((r) => [r.spanId, r.parentSpanId]));
  const depth = new Map<string, number>();
  for (const r of rows) {
    let d = 0;
    let cur = r.parentSpanId;
    const seen = new Set<string>([r.spanId]);
    while (cur && parent.has(cur) && !seen.has(cur) && d < 1000) {
      seen.add(cur);
      d++;
      cur = parent.get(cur) ?? null;
    }
    depth.set(r.spanId, d);
  }
  return depth;
}

/** A stored call row as its record: the columns as the named fields, mapped by the one rule (call-record.ts). */
function callOf(r: Row): CallRecord {
  return callRecordOf({
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
    resultBytes: numOrNull(r.result_bytes),
    resultTokens: numOrNull(r.result_tokens),
  });
}

/** The reader methods of `reader` as plain functions, for a backend object to spread. */
export function readerMethods(reader: SpanReader): SpanReader {
  return {
    tools: (since, until, tool, side) => reader.tools(since, until, tool, side),
    calls: (filter) => reader.calls(filter),
    trace: (id) => reader.trace(id),
    conversation: (id) => reader.conversation(id),
    flags: (since, until, filter) => reader.flags(since, until, filter),
    toolDetail: (name, since, until) => reader.toolDetail(name, since, until),
    timeseries: (since, until, step, tool, side, byTool) =>
      reader.timeseries(since, until, step, tool, side, byTool),
    search: (query, since) => reader.search(query, since),
    contracts: (name) => reader.contracts(name),
    contractSummaries: (tool) => reader.contractSummaries(tool),
  };
}
