// The SQLite schema, versioned with PRAGMA user_version; each migration runs once, in a transaction.
// Layout (docs/decisions/0003): the spans of one trace from one batch are one row (a block) in append order
// with a mostly-increasing index on trace_seq; the only random-key index is one entry per trace, not per span.

import type Database from 'better-sqlite3';
import { callBucket } from '../call-bucket.js';
import { clientsMigration } from '../sql/clients-migration.js';
import { CONTRACTS_MIGRATION } from '../sql/contracts-migration.js';
import { linkMigration, SQLITE_MEMBER } from '../sql/link-sql.js';
import { logicalMigration } from '../sql/logical-migration.js';
import { OUTPUT_MIGRATION } from '../sql/output-migration.js';
import { BACKFILL_CALLS, FILL_SOURCES } from '../sql/sides-migration.js';
import { key, narrowCallRows } from './call-layout.js';
import { LOOP_EVIDENCE_MIGRATION } from './loop-evidence-migration.js';

/** A schema step: SQL, or a function for steps SQL alone cannot do (filling a column computed in JS). */
export type Migration = string | ((db: Database.Database) => void);

export const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE traces (
    seq INTEGER PRIMARY KEY,
    trace_id TEXT NOT NULL,
    first_ns INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX traces_by_id ON traces(trace_id);
  CREATE INDEX traces_by_first ON traces(first_ns);

  CREATE TABLE resources (
    id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    attributes TEXT NOT NULL
  );

  CREATE TABLE span_blocks (
    id INTEGER PRIMARY KEY,
    trace_seq INTEGER NOT NULL,
    resource_id INTEGER NOT NULL,
    span_ids TEXT NOT NULL,
    spans TEXT NOT NULL
  );
  CREATE INDEX span_blocks_by_trace ON span_blocks(trace_seq);

  CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    trace_seq INTEGER NOT NULL,
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
    is_error INTEGER NOT NULL,
    retryable INTEGER,
    partial_effect INTEGER NOT NULL,
    effect TEXT,
    duration_ms REAL NOT NULL,
    start_ns INTEGER NOT NULL,
    issues TEXT,
    input_hash TEXT,
    input_shape TEXT,
    idempotency_key_hash TEXT,
    conversation_id TEXT,
    call_id TEXT,
    kind INTEGER NOT NULL,
    service TEXT
  );
  CREATE INDEX tool_calls_by_time ON tool_calls(start_ns);
  CREATE INDEX tool_calls_by_tool ON tool_calls(tool, start_ns);
  CREATE INDEX tool_calls_by_trace ON tool_calls(trace_seq);

  CREATE TABLE conversation_traces (
    conversation_id TEXT NOT NULL,
    trace_seq INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, trace_seq)
  ) WITHOUT ROWID;
  CREATE INDEX conversation_traces_by_trace ON conversation_traces(trace_seq);

  CREATE TABLE tool_minutes (
    minute INTEGER NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    code TEXT NOT NULL,
    calls INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    hist TEXT NOT NULL,
    PRIMARY KEY (minute, tool, version, code)
  ) WITHOUT ROWID;

  CREATE TABLE tool_hours (
    hour INTEGER NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    code TEXT NOT NULL,
    calls INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    hist TEXT NOT NULL,
    PRIMARY KEY (hour, tool, version, code)
  ) WITHOUT ROWID;
  `,
  // v2: detector state. Retry-loop flags are computed on the writer thread for the traces and conversations
  // a batch touched; drift is computed at query time from these small per-tool tables.
  `
  CREATE TABLE flags (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    tool TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_key TEXT NOT NULL,
    trace_id TEXT,
    conversation_id TEXT,
    count INTEGER NOT NULL,
    first_ns INTEGER NOT NULL,
    last_ns INTEGER NOT NULL,
    summary TEXT NOT NULL,
    evidence TEXT NOT NULL
  );
  CREATE INDEX flags_by_time ON flags(last_ns);
  CREATE INDEX flags_by_scope ON flags(scope, scope_key);

  CREATE TABLE tool_schemas (
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    schema_hash TEXT NOT NULL,
    first_ns INTEGER NOT NULL,
    last_ns INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    last_trace_id TEXT NOT NULL,
    PRIMARY KEY (tool, version, schema_hash)
  ) WITHOUT ROWID;

  CREATE TABLE tool_shapes (
    tool TEXT NOT NULL,
    shape TEXT NOT NULL,
    first_ns INTEGER NOT NULL,
    last_ns INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    invalid INTEGER NOT NULL,
    PRIMARY KEY (tool, shape)
  ) WITHOUT ROWID;

  CREATE TABLE tool_paths (
    tool TEXT NOT NULL,
    code TEXT NOT NULL,
    path TEXT NOT NULL,
    minute INTEGER NOT NULL,
    count INTEGER NOT NULL,
    last_trace_id TEXT NOT NULL,
    PRIMARY KEY (tool, code, path, minute)
  ) WITHOUT ROWID;
  `,
  // v3: search by call id (gen_ai.tool.call.id). Partial, so spans without a call id cost nothing.
  `
  CREATE INDEX tool_calls_by_call_id ON tool_calls(call_id) WHERE call_id IS NOT NULL;
  `,
  // v4: the call-id index becomes time-ordered within 64 buckets (call-bucket.ts): a random-key index per tool
  // call cost 40 % of the writer's throughput. Rows stored before get their bucket here.
  (db) => {
    db.exec('ALTER TABLE tool_calls ADD COLUMN call_bucket INTEGER');
    db.function('toolscope_call_bucket', { deterministic: true }, (id: unknown) =>
      typeof id === 'string' ? callBucket(id) : null,
    );
    db.exec(`
      UPDATE tool_calls SET call_bucket = toolscope_call_bucket(call_id) WHERE call_id IS NOT NULL;
      DROP INDEX tool_calls_by_call_id;
      CREATE INDEX tool_calls_by_call ON tool_calls(call_bucket, start_ns, call_id) WHERE call_id IS NOT NULL;
    `);
  },
  // v5: stateless loop detection. Flags are replaced per scope, and each conversation keeps a filter of the
  // keys it has called (detection/key-filter.ts). Conversations already stored get a filter of the earlier
  // format, which says "maybe" to every key, so a loop that straddles the upgrade is still found: the first batch
  // of each re-reads its calls and rebuilds the filter.
  `
  ALTER TABLE flags ADD COLUMN input_hash TEXT;
  UPDATE flags SET input_hash = json_extract(evidence, '$.inputHash') WHERE json_valid(evidence);
  CREATE INDEX flags_by_group ON flags(scope, scope_key, tool, input_hash);
  CREATE TABLE conversations (
    conversation_id TEXT PRIMARY KEY,
    keys BLOB NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO conversations (conversation_id, keys)
    SELECT DISTINCT conversation_id, zeroblob(512) FROM tool_calls
     WHERE conversation_id IS NOT NULL AND input_hash IS NOT NULL AND kind != 3;
  `,
  // v6: call sources and sides (call-side.ts). Rollups gain `side` in their key, so they are rebuilt (SQLite
  // cannot change a primary key); what they held was counted from server rows.
  (db) => {
    db.exec(`
      ALTER TABLE tool_calls ADD COLUMN source TEXT;
      ALTER TABLE tool_calls ADD COLUMN paired INTEGER NOT NULL DEFAULT 0;
      ${BACKFILL_CALLS}
      CREATE TABLE tool_sources (
        tool TEXT NOT NULL,
        source TEXT NOT NULL,
        side TEXT NOT NULL,
        first_ns INTEGER NOT NULL,
        last_ns INTEGER NOT NULL,
        PRIMARY KEY (tool, source, side)
      ) WITHOUT ROWID;
      ${FILL_SOURCES}
    `);
    for (const [table, column] of [
      ['tool_minutes', 'minute'],
      ['tool_hours', 'hour'],
    ] as const)
      db.exec(`
        CREATE TABLE ${table}_v6 (
          ${column} INTEGER NOT NULL,
          tool TEXT NOT NULL,
          version TEXT NOT NULL,
          code TEXT NOT NULL,
          side TEXT NOT NULL,
          calls INTEGER NOT NULL,
          errors INTEGER NOT NULL,
          hist TEXT NOT NULL,
          PRIMARY KEY (${column}, tool, version, code, side)
        ) WITHOUT ROWID;
        INSERT INTO ${table}_v6 (${column}, tool, version, code, side, calls, errors, hist)
          SELECT ${column}, tool, version, code, 'server', calls, errors, hist FROM ${table};
        DROP TABLE ${table};
        ALTER TABLE ${table}_v6 RENAME TO ${table};
      `);
  },
  // v7: the contract catalog and the cause of a failure (sql/contracts-migration.ts).
  CONTRACTS_MIGRATION,
  // v8: a call's result size (sql/output-migration.ts).
  OUTPUT_MIGRATION,
  // v9: call ids by prefix (decision 0012): the index becomes (ten-minute slot, call_id), an expression, so no
  // row changes; the bucket column stays for the rows that have it, and is no longer written.
  `
  DROP INDEX IF EXISTS tool_calls_by_call;
  CREATE INDEX tool_calls_by_call_slot ON tool_calls((start_ns / 600000000000), call_id) WHERE call_id IS NOT NULL;
  `,
  // v10: span blocks packed (block-packing.ts, decision 0011) into their own column; rows before keep their JSON
  // text in `spans` and are read from there, so nothing is rewritten.
  'ALTER TABLE span_blocks ADD COLUMN packed BLOB;',
  // v11: the tool-call row narrowed (call-layout.ts, decision 0013); `tool_calls` becomes a view with the same
  // columns, so the shared read SQL is unchanged.
  narrowCallRows,
  // v12: result hashes and model calls, for loop detection (loop-evidence-migration.ts).
  LOOP_EVIDENCE_MIGRATION,
  // v13: call ids by (block of 4,096 rows, call_id) instead of (ten-minute slot, call_id) (call-block.ts,
  // decision 0038): a new call lands in the newest block's small subtree whatever the rate.
  `DROP INDEX tool_calls_by_call_slot;
  CREATE INDEX tool_calls_by_call_block ON tool_call_rows((id / 4096), call_id) WHERE call_id IS NOT NULL;`,
  // v14: the MCP client's version on each call, and the rollups per client (sql/clients-migration.ts).
  clientsMigration({
    key,
    tableSuffix: 'WITHOUT ROWID',
    jsonObject: (k, v) => `json_group_object(${k}, ${v})`,
  }),
  // v15: one logical call's facts on its row, and how a row counts (sql/logical-migration.ts).
  logicalMigration(key),
  // v16: the parts of logical calls by their open links, for joining them across traces (sql/link-sql.ts).
  linkMigration(SQLITE_MEMBER),
  // v17: no table changes. Conversation key filters may be written in layers (detection/key-filter.ts format 4,
  // decision 0070), which a collector before this version reads as empty, so it would miss loops and write
  // the conversation's keys away: the version makes such a collector refuse this store.
  'SELECT 1;',
];

export type MigrationResult = { from: number; to: number };

/** Brings the database to the newest schema; refuses a database from a newer collector. */
export function migrate(db: Database.Database): MigrationResult {
  const from = versionOf(db);
  // Two collectors may open one new file at once (two `pnpm start` in one clone): each step takes the write
  // lock first (BEGIN IMMEDIATE, which waits out busy_timeout) and reads the version again under it, so a step
  // the other process applied meanwhile is skipped instead of run twice ("duplicate column name").
  const step = db.transaction((): boolean => {
    const v = versionOf(db);
    if (v >= MIGRATIONS.length) return false;
    const migration = MIGRATIONS[v] as Migration;
    if (typeof migration === 'string') db.exec(migration);
    else migration(db);
    db.pragma(`user_version = ${v + 1}`);
    return true;
  });
  while (step.immediate()) {}
  return { from, to: MIGRATIONS.length };
}

function versionOf(db: Database.Database): number {
  const v = Number(db.pragma('user_version', { simple: true }));
  if (v > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${v} is newer than this collector (${MIGRATIONS.length}); upgrade toolscope`,
    );
  }
  return v;
}
