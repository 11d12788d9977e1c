// A PostgreSQL batch's rollup rows (tool_minutes, tool_hours and their per-client twins) are appended: each batch
// inserts one row per key it adds to, with its own counts and histograms, and takes no lock. A key may then have
// several rows, which every read adds up (storage/sql reads sum counts and merge histograms across rows); the
// merge step (pg-rollup-merge.ts) folds them into one now and then. Locking each row, reading it back, merging
// and rewriting it in every batch cost about 12 µs of CPU per span between the collector and the server, and
// queued every batch behind the others on rows they all share (decision 0065).
import { serialize } from '../../aggregation/histogram.js';
import type { Rollup, RollupTable } from '../../aggregation/rollups.js';
import { ROLLUP_SIZES } from '../sql/output-migration.js';
import { pgArray } from './pg-array.js';

/** The rollup tables, each with its time column and whether the MCP client is in its key. */
export const ROLLUP_TABLES = [
  ['tool_minutes', 'minute', false],
  ['tool_hours', 'hour', false],
  ['tool_client_minutes', 'minute', true],
  ['tool_client_hours', 'hour', true],
] as const satisfies readonly (readonly [RollupTable, string, boolean])[];

export const keyColumns = (column: string, client: boolean) =>
  `${column}, tool, version, code, side${client ? ', client_name, client_version' : ''}`;
/** The types of a rollup table's columns in the order columnsOf gives them: its key, then its values. */
export const columnTypes = (client: boolean) => [
  'bigint',
  ...(client ? ['text', 'text', 'text', 'text', 'text', 'text'] : ['text', 'text', 'text', 'text']),
  ...['bigint', 'bigint', 'text', 'text', 'text', 'bigint', 'bigint'],
];
export const unnest = (types: string[], from: number) =>
  `unnest(${types.map((type, i) => `$${i + from}::${type}[]`).join(', ')})`;

/** A rollup's key columns, each an array literal over `rows` (pg-array.ts), in the tables' column order. */
export function keysOf(rows: Rollup[], client: boolean): string[] {
  return [
    rows.map((r) => r.bucket),
    rows.map((r) => r.tool),
    rows.map((r) => r.version),
    rows.map((r) => r.code),
    rows.map((r) => r.side),
    ...(client ? [rows.map((r) => r.clientName), rows.map((r) => r.clientVersion)] : []),
  ].map(pgArray);
}

/** A rollup's columns, each an array literal over `rows` (pg-array.ts), in the tables' column order. */
export function columnsOf(rows: Rollup[], client: boolean): string[] {
  const h = rows.map((r) => [
    serialize(r.hist),
    serialize(r.sizes.bytes),
    serialize(r.sizes.tokens),
  ]);
  return [
    ...keysOf(rows, client),
    ...[
      rows.map((r) => r.calls),
      rows.map((r) => r.errors),
      h.map((x) => x[0]),
      h.map((x) => x[1]),
      h.map((x) => x[2]),
      rows.map((r) => r.sizes.maxBytes),
      rows.map((r) => r.sizes.maxTokens),
    ].map(pgArray),
  ];
}

/** Appends a batch's rows to each rollup table, in the order rollupArgs gives their arguments. */
export const ROLLUP_INSERTS = ROLLUP_TABLES.map(([table, column, client]) => {
  const key = keyColumns(column, client);
  return `INSERT INTO ${table} (${key}, calls, errors, hist, ${ROLLUP_SIZES})
  SELECT * FROM ${unnest(columnTypes(client), 1)}`;
});

/** The arguments of ROLLUP_INSERTS: each table's rows of the batch (none: empty arrays, which add nothing). */
export function rollupArgs(rollups: Rollup[]): string[] {
  return ROLLUP_TABLES.flatMap(([table, , client]) =>
    columnsOf(
      rollups.filter((r) => r.table === table),
      client,
    ),
  );
}

/**
 * Schema step: rows are appended, so a key is no longer unique. Rows before it are one per key (`merged`); rows
 * appended after are not, until the merge step folds them (pg-rollup-merge.ts), which finds them by the partial
 * index. The key index serves reads by time as the primary key did.
 */
export const ROLLUP_APPEND_MIGRATION = ROLLUP_TABLES.map(
  ([table, column, client]) => `
  ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD COLUMN merged BOOLEAN NOT NULL DEFAULT TRUE;
  ALTER TABLE ${table} ALTER COLUMN merged SET DEFAULT FALSE;
  CREATE INDEX ${table}_by_key ON ${table} (${keyColumns(column, client)});
  CREATE INDEX ${table}_unmerged ON ${table} (${keyColumns(column, client)}) WHERE NOT merged;`,
).join('\n');

/**
 * Schema step: the merged row of each key found by an index of its own. The merge step reads a bounded run of
 * unmerged rows in key order and then the merged rows of their keys: through the key index, a key with a backlog
 * of unmerged rows would be read whole to find its one merged row (pg-rollup-merge.ts).
 */
export const MERGED_KEY_MIGRATION = ROLLUP_TABLES.map(
  ([table, column, client]) =>
    `CREATE INDEX ${table}_merged ON ${table} (${keyColumns(column, client)}) WHERE merged;`,
).join('\n');
