// The PostgreSQL schema: the same tables and columns as SQLite's (sqlite/schema.ts, version 8), so the shared
// read queries (storage/sql) run unchanged. Versioned in toolscope_schema; each step runs once, in a
// transaction, under an advisory lock, so collectors starting together migrate once.
import type { ClientBase } from 'pg';
import { clientsMigration } from '../sql/clients-migration.js';
import { CONTRACTS_MIGRATION } from '../sql/contracts-migration.js';
import { linkMigration, PG_MEMBER } from '../sql/link-sql.js';
import { logicalMigration } from '../sql/logical-migration.js';
import { OUTPUT_MIGRATION } from '../sql/output-migration.js';
import { BACKFILL_CALLS, FILL_SOURCES } from '../sql/sides-migration.js';
import { PG_CALL_ROWS_MIGRATION, PG_LOOP_EVIDENCE_MIGRATION } from './call-layout.js';
import { MERGED_KEY_MIGRATION, ROLLUP_APPEND_MIGRATION } from './pg-rollups.js';

/** pg_advisory_xact_lock key of migrations ("toolscop" as ASCII bytes). */
const MIGRATION_LOCK = 8_390_047_142_397_570_928n;

export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE traces (
    seq BIGSERIAL PRIMARY KEY,
    trace_id TEXT NOT NULL UNIQUE,
    first_ns BIGINT NOT NULL
  );
  CREATE INDEX traces_by_first ON traces(first_ns);

  CREATE TABLE resources (
    id BIGSERIAL PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    attributes TEXT NOT NULL
  );

  CREATE TABLE span_blocks (
    id BIGSERIAL PRIMARY KEY,
    trace_seq BIGINT NOT NULL,
    resource_id BIGINT NOT NULL,
    span_ids TEXT NOT NULL,
    spans TEXT NOT NULL
  );
  CREATE INDEX span_blocks_by_trace ON span_blocks(trace_seq);

  CREATE TABLE tool_calls (
    id BIGSERIAL PRIMARY KEY,
    trace_seq BIGINT NOT NULL,
    trace_id TEXT NOT NULL,
    span_id TEXT NOT NULL,
    parent_span_id TEXT,
    tool TEXT NOT NULL,
    version TEXT,
    schema_hash TEXT,
    attempt INTEGER NOT NULL,
    code TEXT,
    error_type TEXT,
    reason TEXT,
    is_error SMALLINT NOT NULL,
    retryable SMALLINT,
    partial_effect SMALLINT NOT NULL,
    effect TEXT,
    duration_ms DOUBLE PRECISION NOT NULL,
    start_ns BIGINT NOT NULL,
    issues TEXT,
    input_hash TEXT,
    input_shape TEXT,
    idempotency_key_hash TEXT,
    conversation_id TEXT,
    call_id TEXT,
    kind SMALLINT NOT NULL,
    service TEXT,
    call_bucket INTEGER
  );
  CREATE INDEX tool_calls_by_time ON tool_calls(start_ns);
  CREATE INDEX tool_calls_by_tool ON tool_calls(tool, start_ns);
  CREATE INDEX tool_calls_by_trace ON tool_calls(trace_seq);
  CREATE INDEX tool_calls_by_call ON tool_calls(call_bucket, start_ns, call_id) WHERE call_id IS NOT NULL;

  CREATE TABLE conversation_traces (
    conversation_id TEXT NOT NULL,
    trace_seq BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, trace_seq)
  );
  CREATE INDEX conversation_traces_by_trace ON conversation_traces(trace_seq);

  -- One row per conversation: the lock that orders its writers, and its key filter (detection/key-filter.ts).
  CREATE TABLE conversations (
    conversation_id TEXT PRIMARY KEY,
    keys BYTEA NOT NULL
  );

  CREATE TABLE tool_minutes (
    minute BIGINT NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    code TEXT NOT NULL,
    calls BIGINT NOT NULL,
    errors BIGINT NOT NULL,
    hist TEXT NOT NULL,
    PRIMARY KEY (minute, tool, version, code)
  );

  CREATE TABLE tool_hours (
    hour BIGINT NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    code TEXT NOT NULL,
    calls BIGINT NOT NULL,
    errors BIGINT NOT NULL,
    hist TEXT NOT NULL,
    PRIMARY KEY (hour, tool, version, code)
  );

  CREATE TABLE flags (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    tool TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    trace_id TEXT,
    conversation_id TEXT,
    count INTEGER NOT NULL,
    first_ns BIGINT NOT NULL,
    last_ns BIGINT NOT NULL,
    summary TEXT NOT NULL,
    evidence TEXT NOT NULL,
    input_hash TEXT
  );
  CREATE INDEX flags_by_time ON flags(last_ns);
  CREATE INDEX flags_by_group ON flags(scope, scope_key, tool, input_hash);

  CREATE TABLE tool_schemas (
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    schema_hash TEXT NOT NULL,
    first_ns BIGINT NOT NULL,
    last_ns BIGINT NOT NULL,
    calls BIGINT NOT NULL,
    last_trace_id TEXT NOT NULL,
    PRIMARY KEY (tool, version, schema_hash)
  );

  CREATE TABLE tool_shapes (
    tool TEXT NOT NULL,
    shape TEXT NOT NULL,
    first_ns BIGINT NOT NULL,
    last_ns BIGINT NOT NULL,
    calls BIGINT NOT NULL,
    invalid BIGINT NOT NULL,
    PRIMARY KEY (tool, shape)
  );

  CREATE TABLE tool_paths (
    tool TEXT NOT NULL,
    code TEXT NOT NULL,
    path TEXT NOT NULL,
    minute BIGINT NOT NULL,
    count BIGINT NOT NULL,
    last_trace_id TEXT NOT NULL,
    PRIMARY KEY (tool, code, path, minute)
  );

  -- Merges two latency histograms (histogram.ts: JSON objects of bucket -> count) inside an upsert, so
  -- concurrent collectors add to a rollup row without reading it first.
  CREATE FUNCTION toolscope_hist_merge(a TEXT, b TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT COALESCE(jsonb_object_agg(k, n), '{}'::jsonb)::text FROM (
      SELECT k, SUM(v::numeric) AS n FROM (
        SELECT key AS k, value AS v FROM jsonb_each_text(a::jsonb)
        UNION ALL SELECT key, value FROM jsonb_each_text(b::jsonb)
      ) AS both_sides GROUP BY k
    ) AS merged
  $$;
  `,
  // v2: call sources and sides (call-side.ts); the rollups' key gains `side` (what they held was counted
  // from server rows).
  `
  ALTER TABLE tool_calls ADD COLUMN source TEXT, ADD COLUMN paired SMALLINT NOT NULL DEFAULT 0;
  ${BACKFILL_CALLS}
  CREATE TABLE tool_sources (
    tool TEXT NOT NULL,
    source TEXT NOT NULL,
    side TEXT NOT NULL,
    first_ns BIGINT NOT NULL,
    last_ns BIGINT NOT NULL,
    PRIMARY KEY (tool, source, side)
  );
  ${FILL_SOURCES}
  ALTER TABLE tool_minutes ADD COLUMN side TEXT NOT NULL DEFAULT 'server';
  ALTER TABLE tool_minutes DROP CONSTRAINT tool_minutes_pkey,
    ADD PRIMARY KEY (minute, tool, version, code, side), ALTER COLUMN side DROP DEFAULT;
  ALTER TABLE tool_hours ADD COLUMN side TEXT NOT NULL DEFAULT 'server';
  ALTER TABLE tool_hours DROP CONSTRAINT tool_hours_pkey,
    ADD PRIMARY KEY (hour, tool, version, code, side), ALTER COLUMN side DROP DEFAULT;
  `,
  // v3: the contract catalog and the cause of a failure (sql/contracts-migration.ts).
  CONTRACTS_MIGRATION,
  // v4: a call's result size (sql/output-migration.ts).
  OUTPUT_MIGRATION,
  // v5: call ids by prefix (decision 0012): the index becomes (ten-minute slot, call_id in byte order), so a
  // prefix range is a prefix whatever the database's collation; the bucket column is no longer written.
  `
  DROP INDEX IF EXISTS tool_calls_by_call;
  CREATE INDEX tool_calls_by_call_slot ON tool_calls ((start_ns / 600000000000), (call_id COLLATE "C"))
    WHERE call_id IS NOT NULL;
  `,
  // v6: span blocks packed by the collector (block-packing.ts, decision 0011) into their own column, which
  // TOAST moves out of line but does not try to compress again. Rows before keep their text in `spans` and are
  // read from there: adding a column and dropping a NOT NULL rewrite nothing.
  `
  ALTER TABLE span_blocks ADD COLUMN packed BYTEA;
  ALTER TABLE span_blocks ALTER COLUMN packed SET STORAGE EXTERNAL;
  ALTER TABLE span_blocks ALTER COLUMN spans DROP NOT NULL;
  `,
  // v7: the tool-call row narrowed (call-layout.ts, decision 0013); \`tool_calls\` becomes a view with the same
  // columns, so the shared read SQL is unchanged.
  PG_CALL_ROWS_MIGRATION,
  // v8: result hashes and model calls, for loop detection (call-layout.ts).
  PG_LOOP_EVIDENCE_MIGRATION,
  // v9: call ids by (block of 4,096 rows, call_id in byte order) instead of (ten-minute slot, call_id)
  // (call-block.ts, decision 0038): a new call lands in the newest block's small subtree whatever the rate.
  `DROP INDEX tool_calls_by_call_slot;
  CREATE INDEX tool_calls_by_call_block ON tool_call_rows((id / 4096), (call_id COLLATE "C"))
    WHERE call_id IS NOT NULL;`,
  // v10: the MCP client's version on each call, and the rollups per client (sql/clients-migration.ts).
  clientsMigration({
    key: (column) => `c.${column}`,
    tableSuffix: '',
    jsonObject: (k, v) => `jsonb_object_agg(${k}, ${v})::text`,
  }),
  // v11: one logical call's facts on its row, and how a row counts (sql/logical-migration.ts).
  logicalMigration((column) => `c.${column}`),
  // v12: the parts of logical calls by their open links, for joining them across traces (sql/link-sql.ts).
  linkMigration(PG_MEMBER),
  // v13: rollup rows appended per batch and merged later, no longer one per key (pg-rollups.ts, decision 0065).
  ROLLUP_APPEND_MIGRATION,
  // v14: each key's merged row by an index of its own, for merge steps of bounded time (pg-rollup-merge.ts).
  MERGED_KEY_MIGRATION,
  // v15: conversation key filters may be written in layers (detection/key-filter.ts format 4, decision 0070),
  // which a collector before this version reads as empty, so it would miss loops and write the conversation's
  // keys away: the version makes such a collector refuse this database at its start. A filter of three layers
  // (3.6 KB) passed the 2 KB past which PostgreSQL compresses a row's values and moves them to the TOAST table,
  // at each batch's write-back: kept in the row up to a page, and never compressed (its bits barely compress).
  // Both are catalog changes; no row is rewritten.
  `ALTER TABLE conversations SET (toast_tuple_target = 8160);
  ALTER TABLE conversations ALTER COLUMN keys SET STORAGE EXTERNAL;`,
];

export type PgMigration = { from: number; to: number };

/**
 * Brings the database to the newest schema; refuses a database from a newer collector. All steps run in one
 * transaction: a fault at any point (the connection lost, the server gone) rolls every step back, so the schema
 * is never half-migrated, and the next attempt starts from the version before.
 */
export async function migratePostgres(client: ClientBase): Promise<PgMigration> {
  await client.query('BEGIN');
  try {
    // A step may rewrite a large table: no statement bound here (the pool's does not apply to this connection,
    // but a statement_timeout in the URL's options would).
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query('CREATE TABLE IF NOT EXISTS toolscope_schema (version INTEGER NOT NULL)');
    const found = await client.query<{ version: number }>('SELECT version FROM toolscope_schema');
    const from = found.rows[0]?.version ?? 0;
    if (found.rows.length === 0) await client.query('INSERT INTO toolscope_schema VALUES (0)');
    if (from > PG_MIGRATIONS.length) {
      throw new Error(
        `database schema version ${from} is newer than this collector (${PG_MIGRATIONS.length}); upgrade toolscope`,
      );
    }
    for (let v = from; v < PG_MIGRATIONS.length; v++) {
      await client.query(PG_MIGRATIONS[v] as string);
      await client.query('UPDATE toolscope_schema SET version = $1', [v + 1]);
    }
    await client.query('COMMIT');
    return { from, to: PG_MIGRATIONS.length };
  } catch (error) {
    // The migration's own error is what the caller must see (serve prints it and exits 1); a ROLLBACK that
    // fails too means the connection is gone, and the server discards the transaction with it.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
