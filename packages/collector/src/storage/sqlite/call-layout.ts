// SQLite's tool-call rows (schema v11, decision 0013): the narrowed row of storage/call-row.ts, with span ids
// and lowercase 16-hex hashes as 8-byte BLOBs besides (keyBytes, call-rows.ts). The view `tool_calls` reads
// them back as the text they came as. Only the writer (block-writer.ts) and retention touch the physical table;
// schema.test.ts holds the view's query plans that matter.
import type Database from 'better-sqlite3';
import { callView, rewriteCalls } from '../call-row.js';
import { keyBytes } from './call-rows.js';

/** `x` as stored (BLOB or text) back to the text it was written as: keyBytes (call-rows.ts) in reverse. */
export const key = (column: string) =>
  `CASE WHEN typeof(c.${column}) = 'blob' THEN lower(hex(c.${column})) ELSE c.${column} END`;

/** The physical table; the writer names its columns (CALL_ROW_COLUMNS, call-row.ts). */
const CALL_ROW_TABLE = `
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
const CALL_ROW_INDEXES = `
  CREATE INDEX tool_calls_by_time ON tool_call_rows(start_ns);
  CREATE INDEX tool_calls_by_tool ON tool_call_rows(tool_id, start_ns);
  CREATE INDEX tool_calls_by_trace ON tool_call_rows(trace_seq);
  CREATE INDEX tool_calls_by_exception ON tool_call_rows(start_ns) WHERE exception_type IS NOT NULL;
  CREATE INDEX tool_calls_by_call_slot ON tool_call_rows((start_ns / 600000000000), call_id)
    WHERE call_id IS NOT NULL`;

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
  const wide = db
    .prepare("SELECT name FROM pragma_table_info('tool_calls')")
    .pluck()
    .all() as string[];
  db.exec(`
    CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
    ${CALL_ROW_TABLE};
    ${rewriteCalls(wide, (expr) => `toolscope_key(${expr})`)}
    ${CALL_ROW_INDEXES};
    ${callView(key, 1)};
  `);
}
