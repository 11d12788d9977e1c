// SQLite's tool-call row, narrowed (schema v11, decision 0013): the physical table `tool_call_rows` keeps no
// trace id (`traces` has it), span ids and 16-hex hashes as 8-byte BLOBs, and the tool, input shape, service,
// source and effect as ids into `strings`. The view `tool_calls` gives back the columns the shared read SQL
// (storage/sql) has always read, with the same names and values, so PostgreSQL's table and this view answer the
// same SQL. Only the writer (call-rows.ts) and retention touch the physical table.
//
// The view's joins are LEFT JOINs on primary keys: SQLite drops such a join from a (non-aggregate) query that
// reads nothing from it, so reading a trace's calls costs no trace-id lookup; and it turns one into an inner
// join, free to be reordered, when a WHERE term needs a value from it (`WHERE tool = ?` starts from `strings` and
// reads tool_calls_by_tool). schema.test.ts holds these plans. An aggregate keeps the joins: a primary-key lookup
// per row it reads (bench:query's targets hold with them).
import type Database from 'better-sqlite3';
import { keyBytes } from './call-rows.js';

/** `x` as stored (BLOB or text) back to the text it was written as: keyBytes (call-rows.ts) in reverse. */
const key = (column: string) =>
  `CASE WHEN typeof(c.${column}) = 'blob' THEN lower(hex(c.${column})) ELSE c.${column} END`;

/** Columns of a fresh table, in the order the writer inserts them (call-rows.ts). */
export const CALL_ROW_TABLE = `
  CREATE TABLE tool_call_rows (
    id INTEGER PRIMARY KEY,
    trace_seq INTEGER NOT NULL,
    span_id NOT NULL,
    parent_span_id,
    tool_id INTEGER NOT NULL,
    version TEXT,
    schema_hash,
    attempt INTEGER NOT NULL,
    code TEXT,
    error_type TEXT,
    reason TEXT,
    is_error INTEGER NOT NULL,
    retryable INTEGER,
    partial_effect INTEGER NOT NULL,
    effect_id INTEGER,
    duration_ms REAL NOT NULL,
    start_ns INTEGER NOT NULL,
    issues TEXT,
    input_hash,
    input_shape_id INTEGER,
    idempotency_key_hash,
    conversation_id TEXT,
    call_id TEXT,
    kind INTEGER NOT NULL,
    service_id INTEGER,
    source_id INTEGER,
    paired INTEGER NOT NULL DEFAULT 0,
    exception_type TEXT,
    exception_message TEXT,
    client_name TEXT,
    result_bytes BIGINT,
    result_tokens BIGINT
  )`;

/** The same indexes, under the same names, as the table before v11 (the id-typed tool makes its index smaller). */
export const CALL_ROW_INDEXES = `
  CREATE INDEX tool_calls_by_time ON tool_call_rows(start_ns);
  CREATE INDEX tool_calls_by_tool ON tool_call_rows(tool_id, start_ns);
  CREATE INDEX tool_calls_by_trace ON tool_call_rows(trace_seq);
  CREATE INDEX tool_calls_by_exception ON tool_call_rows(start_ns) WHERE exception_type IS NOT NULL;
  CREATE INDEX tool_calls_by_call_slot ON tool_call_rows((start_ns / 600000000000), call_id)
    WHERE call_id IS NOT NULL`;

export const CALL_VIEW = `
  CREATE VIEW tool_calls AS SELECT
    c.id, c.trace_seq, t.trace_id, ${key('span_id')} AS span_id, ${key('parent_span_id')} AS parent_span_id,
    tool.value AS tool, c.version, ${key('schema_hash')} AS schema_hash, c.attempt, c.code, c.error_type,
    c.reason, c.is_error, c.retryable, c.partial_effect, effect.value AS effect, c.duration_ms, c.start_ns,
    c.issues, ${key('input_hash')} AS input_hash, shape.value AS input_shape,
    ${key('idempotency_key_hash')} AS idempotency_key_hash, c.conversation_id, c.call_id, c.kind,
    service.value AS service, source.value AS source, c.paired, c.exception_type, c.exception_message,
    c.client_name, c.result_bytes, c.result_tokens
  FROM tool_call_rows AS c
    LEFT JOIN traces AS t ON t.seq = c.trace_seq
    LEFT JOIN strings AS tool ON tool.id = c.tool_id
    LEFT JOIN strings AS effect ON effect.id = c.effect_id
    LEFT JOIN strings AS shape ON shape.id = c.input_shape_id
    LEFT JOIN strings AS service ON service.id = c.service_id
    LEFT JOIN strings AS source ON source.id = c.source_id`;

/** The interned columns of the physical table, each with the view column it reads as. */
export const INTERNED = [
  ['tool_id', 'tool'],
  ['effect_id', 'effect'],
  ['input_shape_id', 'input_shape'],
  ['service_id', 'service'],
  ['source_id', 'source'],
] as const;

/** The columns stored through keyBytes. */
export const KEYED = [
  'span_id',
  'parent_span_id',
  'schema_hash',
  'input_hash',
  'idempotency_key_hash',
] as const;

/**
 * Migration v11: every stored call is rewritten into the narrowed table, in id order (ids are kept: pairing
 * and the API's call ids refer to them), then the old table and its indexes are dropped and the view takes its
 * name. One pass over `tool_calls`; the file needs room for both tables until the next VACUUM or reuse of the
 * freed pages (docs/storage.md).
 */
export function narrowCallRows(db: Database.Database): void {
  db.function('toolscope_key', { deterministic: true }, (v: unknown) =>
    typeof v === 'string' ? keyBytes(v) : v,
  );
  const columns = INTERNED.map(([, text]) => text);
  db.exec(`
    CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
    ${CALL_ROW_TABLE};
    INSERT OR IGNORE INTO strings (value)
      ${columns.map((c) => `SELECT ${c} FROM tool_calls WHERE ${c} IS NOT NULL`).join(' UNION ')};
  `);
  const physical = (name: string) => {
    const interned = INTERNED.find(([, text]) => text === name);
    if (interned) return interned[0];
    return name;
  };
  const source = (name: string) => {
    if (INTERNED.some(([, text]) => text === name))
      return `(SELECT id FROM strings WHERE value = c.${name})`;
    if ((KEYED as readonly string[]).includes(name)) return `toolscope_key(c.${name})`;
    return `c.${name}`;
  };
  const names = (
    db.prepare("SELECT name FROM pragma_table_info('tool_calls')").pluck().all() as string[]
  ).filter((n) => n !== 'trace_id' && n !== 'call_bucket');
  db.exec(`
    INSERT INTO tool_call_rows (${names.map(physical).join(', ')})
      SELECT ${names.map(source).join(', ')} FROM tool_calls AS c ORDER BY c.id;
    DROP TABLE tool_calls;
    ${CALL_ROW_INDEXES};
    ${CALL_VIEW};
  `);
}
