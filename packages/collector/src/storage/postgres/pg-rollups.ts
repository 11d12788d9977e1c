// A PostgreSQL batch's rollup rows (tool_minutes, tool_hours and their per-client twins): locked in key order
// and read in one statement, their histograms merged here, then written back. The histograms used to be merged
// by the server inside the upsert (toolscope_hist_merge, a SQL function over jsonb): about 0.5 ms a row, 47 µs
// of the server's CPU per span in bench:ingest, on rows every batch of every collector locks (decision 0057).
// A new row is written as the batch has it and needs no second write.
import type pg from 'pg';
import { addSerialized, type Histogram, serialize } from '../../aggregation/histogram.js';
import type { Rollup, RollupTable } from '../../aggregation/rollups.js';
import { ROLLUP_SIZES } from '../sql/output-migration.js';
import { pgArray } from './pg-array.js';

/** The rollup tables, each with its time column and whether the MCP client is in its key. */
const ROLLUP_TABLES = [
  ['tool_minutes', 'minute', false],
  ['tool_hours', 'hour', false],
  ['tool_client_minutes', 'minute', true],
  ['tool_client_hours', 'hour', true],
] as const satisfies readonly (readonly [RollupTable, string, boolean])[];

const keyColumns = (column: string, client: boolean) =>
  `${column}, tool, version, code, side${client ? ', client_name, client_version' : ''}`;
/** The types of a rollup table's columns in the order columnsOf gives them: its key, then its values. */
const columnTypes = (client: boolean) => [
  'bigint',
  ...(client ? ['text', 'text', 'text', 'text', 'text', 'text'] : ['text', 'text', 'text', 'text']),
  ...['bigint', 'bigint', 'text', 'text', 'text', 'bigint', 'bigint'],
];
const unnest = (types: string[], from: number) =>
  `unnest(${types.map((type, i) => `$${i + from}::${type}[]`).join(', ')})`;

/** A rollup's key as text: the order rows are locked in, and how a row read back is matched to its rollup. */
const keyOf = (
  table: number,
  bucket: string,
  tool: string,
  version: string,
  code: string,
  side: string,
  clientName: string,
  clientVersion: string,
) =>
  `${table}\u0000${bucket.padStart(20, '0')}\u0000${tool}\u0000${version}\u0000${code}\u0000${side}\u0000${clientName}\u0000${clientVersion}`;
const rollupKey = (table: number, r: Rollup) =>
  keyOf(table, String(r.bucket), r.tool, r.version, r.code, r.side, r.clientName, r.clientVersion);

/**
 * Inserts each table's new rows as they are and locks the existing ones (a no-op update), in key order, one table
 * after the other: the tables are read in turn by the UNION ALL, so every collector locks them in one order.
 * Returns each existing row's histograms, which the lock makes current.
 */
const LOCK_SQL = (() => {
  let at = 1;
  const parts = ROLLUP_TABLES.map(([table, column, client], t) => {
    const key = keyColumns(column, client);
    const types = columnTypes(client);
    const sql = `l${t} AS (INSERT INTO ${table} AS r (${key}, calls, errors, hist, ${ROLLUP_SIZES})
    SELECT * FROM ${unnest(types, at)}
    ON CONFLICT (${key}) DO UPDATE SET calls = r.calls
    RETURNING ${t} AS t, (xmax = 0) AS created, ${column}::text AS bucket, tool, version, code, side,
      ${client ? 'client_name, client_version' : `'' AS client_name, '' AS client_version`},
      hist, bytes_hist, tokens_hist)`;
    at += types.length;
    return sql;
  });
  return `WITH ${parts.join(',\n')}\n${ROLLUP_TABLES.map((_, t) => `SELECT * FROM l${t}`).join(' UNION ALL ')}`;
})();

/** Adds a batch's rollup to rows it locked: counts added, histograms as merged by the batch's writer. */
const updateSql = (table: string, column: string, client: boolean) => {
  const key = keyColumns(column, client);
  const types = columnTypes(client);
  const match = key
    .split(', ')
    .map((c) => `r.${c} = d.${c}`)
    .join(' AND ');
  return `UPDATE ${table} AS r SET calls = r.calls + d.calls, errors = r.errors + d.errors, hist = d.hist,
    bytes_hist = d.bytes_hist, tokens_hist = d.tokens_hist, max_bytes = GREATEST(r.max_bytes, d.max_bytes),
    max_tokens = GREATEST(r.max_tokens, d.max_tokens)
  FROM ${unnest(types, 1)} AS d(${key}, calls, errors, hist, ${ROLLUP_SIZES})
  WHERE ${match}`;
};

/** The update of each rollup table, in the order rollupUpdateArgs gives their arguments. */
export const ROLLUP_UPDATES = ROLLUP_TABLES.map(([table, column, client]) =>
  updateSql(table, column, client),
);

/** A rollup's columns, each an array literal over `rows` (pg-array.ts), in the tables' column order. */
function columnsOf(rows: Rollup[], client: boolean, hists?: (r: Rollup) => string[]): string[] {
  const h = rows.map(
    (r) => hists?.(r) ?? [serialize(r.hist), serialize(r.sizes.bytes), serialize(r.sizes.tokens)],
  );
  return [
    rows.map((r) => r.bucket),
    rows.map((r) => r.tool),
    rows.map((r) => r.version),
    rows.map((r) => r.code),
    rows.map((r) => r.side),
    ...(client ? [rows.map((r) => r.clientName), rows.map((r) => r.clientVersion)] : []),
    rows.map((r) => r.calls),
    rows.map((r) => r.errors),
    h.map((x) => x[0]),
    h.map((x) => x[1]),
    h.map((x) => x[2]),
    rows.map((r) => r.sizes.maxBytes),
    rows.map((r) => r.sizes.maxTokens),
  ].map(pgArray);
}

type Locked = {
  t: number;
  created: boolean;
  bucket: string;
  tool: string;
  version: string;
  code: string;
  side: string;
  client_name: string;
  client_version: string;
  hist: string;
  bytes_hist: string;
  tokens_hist: string;
};

const merged = (own: Histogram, stored: string, damaged: (what: string) => void) =>
  serialize(addSerialized(new Map(own), stored, damaged));

/**
 * Writes the batch's new rollup rows and locks its existing ones; returns the arguments of ROLLUP_UPDATES for
 * the existing ones, their histograms merged with what the lock read (a stored histogram that is not valid
 * counts as empty, and `damaged` hears of it), or null when every row was new.
 */
export async function lockRollups(
  client: pg.PoolClient,
  rollups: Rollup[],
  damaged: (what: string) => void,
): Promise<unknown[] | null> {
  if (rollups.length === 0) return null;
  const byTable = ROLLUP_TABLES.map(([table], t) =>
    rollups
      .filter((r) => r.table === table)
      .map((r): [string, Rollup] => [rollupKey(t, r), r])
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
  );
  const args = byTable.flatMap((rows, t) =>
    columnsOf(
      rows.map(([, r]) => r),
      ROLLUP_TABLES[t]?.[2] ?? false,
    ),
  );
  const found = await client.query<Locked>(LOCK_SQL, args);
  const keyed = new Map(byTable.flat());
  const existing: Rollup[][] = ROLLUP_TABLES.map(() => []);
  const hists = new Map<Rollup, string[]>();
  for (const row of found.rows) {
    if (row.created) continue;
    const r = keyed.get(
      keyOf(
        row.t,
        row.bucket,
        row.tool,
        row.version,
        row.code,
        row.side,
        row.client_name,
        row.client_version,
      ),
    );
    if (!r) throw new Error('a locked rollup row matches none of the batch');
    existing[row.t]?.push(r);
    hists.set(r, [
      merged(r.hist, row.hist, damaged),
      merged(r.sizes.bytes, row.bytes_hist, damaged),
      merged(r.sizes.tokens, row.tokens_hist, damaged),
    ]);
  }
  if (existing.every((rows) => rows.length === 0)) return null;
  return existing.flatMap((rows, t) =>
    columnsOf(rows, ROLLUP_TABLES[t]?.[2] ?? false, (r) => hists.get(r) as string[]),
  );
}

/** The arguments of ROLLUP_UPDATES when no rollup row needs an update: every table's arrays empty. */
export const NO_ROLLUP_UPDATES = ROLLUP_TABLES.flatMap(([, , client]) => columnsOf([], client));
