// The narrowed tool-call row both backends store (decision 0013): no trace id (`traces` has it), and the tool,
// input shape, service, source and effect as ids into `strings`. SQLite also stores keys as bytes
// (sqlite/call-rows.ts); PostgreSQL keeps them as text. The view `tool_calls` (callView) gives back the columns
// the shared read SQL (storage/sql) has always read, with the same names and values.
import type { TracedCall } from '../calls/call-columns.js';
import { type LogicalCall, logicalJson } from '../calls/logical-call.js';
import type { MergedCall } from '../calls/logical-join.js';

/** The physical table's columns in the order `callRow` gives their values. */
export const CALL_ROW_COLUMNS = `trace_seq, span_id, parent_span_id, tool_id, version, schema_hash, attempt, code,
  error_type, reason, is_error, retryable, partial_effect, effect_id, duration_ms, start_ns, issues, input_hash,
  input_shape_id, idempotency_key_hash, conversation_id, call_id, kind, service_id, source_id, exception_type,
  exception_message, client_name, result_bytes, result_tokens, paired, output_hash, proxy, client_version,
  logical, part`;

/** The interned columns of the physical table, each with the view column it reads as. */
const INTERNED = [
  ['tool_id', 'tool'],
  ['effect_id', 'effect'],
  ['input_shape_id', 'input_shape'],
  ['service_id', 'service'],
  ['source_id', 'source'],
] as const;

/** The columns a backend may store in a form of its own (SQLite: 16-hex as 8 bytes). */
const KEYED = [
  'span_id',
  'parent_span_id',
  'schema_hash',
  'input_hash',
  'idempotency_key_hash',
  'output_hash',
] as const;

/** How many keyed values one row (callRow, extendedRow) has at most. */
export const KEYED_COLUMNS = KEYED.length;

/** The strings of a call that callRow interns, for a backend that looks their ids up in bulk. */
export function internedOf(c: TracedCall): (string | null)[] {
  return [c.tool, c.effect, c.inputShape, c.service, c.source];
}

/** How a backend stores a key and finds a string's id. */
export type RowEncoding = {
  key: (value: string | null) => unknown;
  id: (value: string) => number;
};

/** The number of values in a call row (CALL_ROW_COLUMNS). */
export const CALL_ROW_LENGTH = 36;

/**
 * The row of one call, in CALL_ROW_COLUMNS order; `part` says how it counts (batch-rows.ts CALL_PART). Written
 * into `row` when given: a writer that binds each row before it makes the next reuses one array (an array of
 * 36 values per call was a tenth of what SQLite's writer thread allocated).
 */
export function callRow(
  seq: number,
  c: TracedCall,
  paired: number,
  part: number,
  e: RowEncoding,
  row: unknown[] = new Array(CALL_ROW_LENGTH),
): unknown[] {
  // The trace id is in `traces`.
  row[0] = seq;
  row[1] = e.key(c.spanId);
  row[2] = e.key(c.parentSpanId);
  row[3] = e.id(c.tool);
  row[4] = c.version;
  row[5] = e.key(c.schemaHash);
  row[6] = c.attempt;
  row[7] = c.code;
  row[8] = c.errorType;
  row[9] = c.reason;
  row[10] = c.isError ? 1 : 0;
  row[11] = c.retryable;
  row[12] = c.partialEffect;
  row[13] = c.effect === null ? null : e.id(c.effect);
  row[14] = c.durationMs;
  row[15] = c.startNs;
  row[16] = c.issues;
  row[17] = e.key(c.inputHash);
  row[18] = c.inputShape === null ? null : e.id(c.inputShape);
  row[19] = e.key(c.idempotencyKeyHash);
  row[20] = c.conversationId;
  row[21] = c.callId;
  row[22] = c.kind;
  row[23] = c.service === null ? null : e.id(c.service);
  row[24] = e.id(c.source);
  row[25] = c.exceptionType;
  row[26] = c.exceptionMessage;
  row[27] = c.clientName;
  row[28] = c.resultBytes;
  row[29] = c.resultTokens;
  row[30] = paired;
  row[31] = e.key(c.outputHash);
  row[32] = c.proxy ? 1 : 0;
  row[33] = c.clientVersion;
  row[34] = logicalJson(c.logical);
  row[35] = part;
  return row;
}

/**
 * A stored row holding a logical call that later parts extended (process/join.ts): its time, outcome and facts
 * become the joined call's. `?` placeholders (PostgreSQL numbers them), the row's id last.
 */
export const EXTEND_ROW_SQL = `UPDATE tool_call_rows SET start_ns = ?, duration_ms = ?, code = ?, error_type = ?,
  reason = ?, is_error = ?, retryable = ?, partial_effect = ?, output_hash = ?, result_bytes = ?,
  result_tokens = ?, exception_type = ?, exception_message = ?, issues = ?, logical = ? WHERE id = ?`;

/** EXTEND_ROW_SQL's values for row `id`. */
export function extendedRow(id: number, m: MergedCall, e: RowEncoding): unknown[] {
  const o = m.outcome;
  return [
    m.startNs,
    m.durationMs,
    o.code,
    o.errorType,
    o.reason,
    o.isError ? 1 : 0,
    o.retryable,
    o.partialEffect,
    e.key(o.outputHash),
    o.resultBytes,
    o.resultTokens,
    o.exceptionType,
    o.exceptionMessage,
    o.issues,
    logicalJson(m.logical),
    id,
  ];
}

/**
 * Marks a stored row as a part of another row's call (batch-rows.ts CALL_PART.joined), its facts then naming the
 * row holding the call: the facts, then the row's id.
 */
export const JOIN_ROW_SQL = 'UPDATE tool_call_rows SET part = 1, logical = ? WHERE id = ?';

/** JOIN_ROW_SQL's values for one joined row. */
export function joinedRow(j: { id: number; logical: LogicalCall }): unknown[] {
  return [logicalJson(j.logical), j.id];
}

/**
 * The view's revision: 1 as the narrowed row's migration made it, 2 with output_hash and proxy, 3 with
 * client_version, 4 with a logical call's facts and how a row counts (sql/logical-migration.ts).
 */
export const CURRENT_VIEW = 4;

/** A string column of the view, read by id only when a query reads it. */
const str = (id: string) => `(SELECT value FROM strings WHERE id = c.${id})`;

/**
 * The view `tool_calls` over `tool_call_rows`, `key` reading a keyed column back as text. The trace id and the
 * tool are LEFT JOINs on primary keys: both databases drop such a join from a (non-aggregate) query that reads
 * nothing from it, and make it an inner join, free to be reordered, when a WHERE term needs its value. The other
 * strings are subqueries, read only when a query reads them: as joins they made PostgreSQL plan a 7-table join
 * for every query (8–26 ms of planning, measured on 300,000 calls), and no query filters on them.
 */
export function callView(key: (column: string) => string, since = CURRENT_VIEW): string {
  // The view as each migration made it: output_hash is a column since SQLite v12 / PostgreSQL v8, client_version
  // since SQLite v14 / PostgreSQL v10.
  const outputHash = since >= 2 ? `, ${key('output_hash')} AS output_hash, c.proxy` : '';
  // A logical call's facts and how the row counts, since SQLite v15 / PostgreSQL v11.
  const logical = since >= 4 ? ', c.logical, c.part' : '';
  const clientVersion = since >= 3 ? ', c.client_version' : '';
  return `
  CREATE VIEW tool_calls AS SELECT
    c.id, c.trace_seq, t.trace_id, ${key('span_id')} AS span_id, ${key('parent_span_id')} AS parent_span_id,
    tool.value AS tool, c.tool_id, c.version, ${key('schema_hash')} AS schema_hash, c.attempt, c.code,
    c.error_type, c.reason, c.is_error, c.retryable, c.partial_effect, ${str('effect_id')} AS effect,
    c.duration_ms, c.start_ns, c.issues, ${key('input_hash')} AS input_hash,
    ${str('input_shape_id')} AS input_shape, ${key('idempotency_key_hash')} AS idempotency_key_hash,
    c.conversation_id, c.call_id, c.kind, ${str('service_id')} AS service, ${str('source_id')} AS source,
    c.paired, c.exception_type, c.exception_message, c.client_name, c.result_bytes, c.result_tokens${outputHash}${clientVersion}${logical}
  FROM tool_call_rows AS c
    LEFT JOIN traces AS t ON t.seq = c.trace_seq
    LEFT JOIN strings AS tool ON tool.id = c.tool_id`;
}

/**
 * The filter of tool_calls by tool name. The name is turned into its id once, so the (tool_id, start_ns) index
 * gives the calls of one tool in time order: a join on the name gives them in the string's order, which made
 * PostgreSQL walk the time index of every tool for a page of one (52 ms on 300,000 calls).
 */
export const TOOL_IS = 'tool_id = (SELECT id FROM strings WHERE value = ?)';

/**
 * The statements that copy the stored calls of the wide table `tool_calls` (its columns `wide`) into
 * `tool_call_rows`, in id order (ids are kept: the API's call ids and pairing refer to them), then drop it.
 * `key(expr)` converts a keyed column's old value. Both tables exist when they run, and `strings` too.
 */
export function rewriteCalls(wide: readonly string[], key: (expr: string) => string): string {
  const texts = INTERNED.map(([, text]) => text);
  const names = wide.filter((n) => n !== 'trace_id' && n !== 'call_bucket');
  const physical = (n: string) => INTERNED.find(([, text]) => text === n)?.[0] ?? n;
  const value = (n: string) =>
    texts.some((t) => t === n)
      ? `(SELECT id FROM strings WHERE value = c.${n})`
      : KEYED.some((k) => k === n)
        ? key(`c.${n}`)
        : `c.${n}`;
  return `
    INSERT INTO strings (value)
      SELECT DISTINCT v FROM (${texts.map((t) => `SELECT ${t} AS v FROM tool_calls`).join(' UNION ALL ')}) AS s
       WHERE v IS NOT NULL
      ON CONFLICT (value) DO NOTHING;
    INSERT INTO tool_call_rows (${names.map(physical).join(', ')})
      SELECT ${names.map(value).join(', ')} FROM tool_calls AS c ORDER BY c.id;
    DROP TABLE tool_calls;`;
}
