// PostgreSQL's tool-call rows (schema v7, decision 0013): the narrowed row of storage/call-row.ts behind the
// same view as SQLite's, keys kept as text (a column cannot hold either bytes or text here). Fixed-width
// columns come first, so no row pays alignment padding between them.
import { callView, rewriteCalls } from '../call-row.js';

/** The wide table's columns at v6, which the rewrite copies (migrations.ts v1–v6). */
const WIDE_AT_V6 =
  `id trace_seq trace_id span_id parent_span_id tool version schema_hash attempt code error_type reason
  is_error retryable partial_effect effect duration_ms start_ns issues input_hash input_shape idempotency_key_hash
  conversation_id call_id kind service call_bucket source paired exception_type exception_message client_name
  result_bytes result_tokens`.split(/\s+/);

export const PG_CALL_ROWS_MIGRATION = `
  CREATE TABLE strings (id SERIAL PRIMARY KEY, value TEXT NOT NULL UNIQUE);
  CREATE TABLE tool_call_rows (
    id BIGSERIAL PRIMARY KEY,
    trace_seq BIGINT NOT NULL,
    start_ns BIGINT NOT NULL,
    duration_ms DOUBLE PRECISION NOT NULL,
    result_bytes BIGINT,
    result_tokens BIGINT,
    tool_id INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    effect_id INTEGER,
    input_shape_id INTEGER,
    service_id INTEGER,
    source_id INTEGER,
    is_error SMALLINT NOT NULL,
    retryable SMALLINT,
    partial_effect SMALLINT NOT NULL,
    kind SMALLINT NOT NULL,
    paired SMALLINT NOT NULL DEFAULT 0,
    span_id TEXT NOT NULL,
    parent_span_id TEXT,
    version TEXT,
    schema_hash TEXT,
    code TEXT,
    error_type TEXT,
    reason TEXT,
    issues TEXT,
    input_hash TEXT,
    idempotency_key_hash TEXT,
    conversation_id TEXT,
    call_id TEXT,
    exception_type TEXT,
    exception_message TEXT,
    client_name TEXT
  );
  ${rewriteCalls(WIDE_AT_V6, (expr) => expr)}
  SELECT setval(pg_get_serial_sequence('tool_call_rows', 'id'),
    COALESCE((SELECT MAX(id) FROM tool_call_rows), 0) + 1, false);
  CREATE INDEX tool_calls_by_time ON tool_call_rows(start_ns);
  CREATE INDEX tool_calls_by_tool ON tool_call_rows(tool_id, start_ns);
  CREATE INDEX tool_calls_by_trace ON tool_call_rows(trace_seq);
  CREATE INDEX tool_calls_by_exception ON tool_call_rows(start_ns) WHERE exception_type IS NOT NULL;
  CREATE INDEX tool_calls_by_call_slot ON tool_call_rows((start_ns / 600000000000), (call_id COLLATE "C"))
    WHERE call_id IS NOT NULL;
  ${callView((column) => `c.${column}`, 1)};
`;

/**
 * v8: a call's result hash (a key, kept as text) and the model calls of each trace, what loop detection needs to
 * tell progress from a loop and to say what a loop cost. Adding a column rewrites nothing; the view is made
 * again with it.
 */
export const PG_LOOP_EVIDENCE_MIGRATION = `
  ALTER TABLE tool_call_rows ADD COLUMN output_hash TEXT;
  ALTER TABLE tool_call_rows ADD COLUMN proxy SMALLINT NOT NULL DEFAULT 0;
  DROP VIEW tool_calls;
  ${callView((column) => `c.${column}`, 2)};
  CREATE TABLE model_calls (
    trace_seq BIGINT NOT NULL,
    start_ns BIGINT NOT NULL,
    end_ns BIGINT NOT NULL,
    input_tokens BIGINT,
    output_tokens BIGINT
  );
  CREATE INDEX model_calls_by_trace ON model_calls(trace_seq, start_ns);
`;
