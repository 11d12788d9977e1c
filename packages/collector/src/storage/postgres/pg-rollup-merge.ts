// The merge step of the appended rollup rows (pg-rollups.ts): the keys that have rows not yet merged, a bounded
// number per table, lose all their rows and get one in their place with the counts added, the histograms merged
// and the maxima kept. One transaction, so a read sees either the rows or their merge, never both or neither;
// one collector at a time (an advisory lock, tried, not waited for). Batches only ever insert rollup rows, so
// nothing they do waits for it, and a row one commits meanwhile is left for the next step.
import type pg from 'pg';
import { addSerialized } from '../../aggregation/histogram.js';
import type { Rollup, RollupSide } from '../../aggregation/rollups.js';
import { inTransaction } from './pg-db.js';
import { columnsOf, columnTypes, keyColumns, ROLLUP_TABLES, unnest } from './pg-rollups.js';

const MERGE_LOCK = 8_390_047_142_397_570_930n;

/** A rollup row as the merge step reads it back. */
type Stored = {
  bucket: string;
  tool: string;
  version: string;
  code: string;
  side: string;
  client_name: string;
  client_version: string;
  calls: string;
  errors: string;
  hist: string;
  bytes_hist: string;
  tokens_hist: string;
  max_bytes: string;
  max_tokens: string;
};

const deleteSql = (table: string, column: string, client: boolean) => {
  const key = keyColumns(column, client);
  const match = key
    .split(', ')
    .map((c) => `r.${c} = k.${c}`)
    .join(' AND ');
  return `DELETE FROM ${table} AS r
    USING (SELECT DISTINCT ${key} FROM ${table} WHERE NOT merged LIMIT $1) AS k
    WHERE ${match}
    RETURNING r.${column}::text AS bucket, r.tool, r.version, r.code, r.side,
      ${client ? 'r.client_name, r.client_version' : `'' AS client_name, '' AS client_version`},
      r.calls::text, r.errors::text, r.hist, r.bytes_hist, r.tokens_hist, r.max_bytes::text,
      r.max_tokens::text`;
};

const insertSql = (table: string, column: string, client: boolean) =>
  `INSERT INTO ${table} (${keyColumns(column, client)}, calls, errors, hist, bytes_hist, tokens_hist,
     max_bytes, max_tokens, merged)
   SELECT *, TRUE FROM ${unnest(columnTypes(client), 1)}`;

const STEPS = ROLLUP_TABLES.map(([table, column, client]) => ({
  table,
  client,
  remove: deleteSql(table, column, client),
  insert: insertSql(table, column, client),
}));

/** The rows of one key folded into one rollup (a stored histogram that is not valid counts as empty). */
function fold(rows: Stored[], table: Rollup['table'], damaged: (what: string) => void): Rollup[] {
  const byKey = new Map<string, Rollup>();
  const said = (what: string) => damaged(`${table}: ${what}`);
  for (const row of rows) {
    const id = `${row.bucket}\u0000${row.tool}\u0000${row.version}\u0000${row.code}\u0000${row.side}\u0000${row.client_name}\u0000${row.client_version}`;
    let r = byKey.get(id);
    if (!r) {
      r = {
        table,
        bucket: BigInt(row.bucket),
        tool: row.tool,
        version: row.version,
        code: row.code,
        side: row.side as RollupSide,
        clientName: row.client_name,
        clientVersion: row.client_version,
        calls: 0,
        errors: 0,
        hist: new Map(),
        sizes: { bytes: new Map(), tokens: new Map(), maxBytes: 0, maxTokens: 0 },
      };
      byKey.set(id, r);
    }
    r.calls += Number(row.calls);
    r.errors += Number(row.errors);
    addSerialized(r.hist, row.hist, said);
    addSerialized(r.sizes.bytes, row.bytes_hist, said);
    addSerialized(r.sizes.tokens, row.tokens_hist, said);
    r.sizes.maxBytes = Math.max(r.sizes.maxBytes, Number(row.max_bytes));
    r.sizes.maxTokens = Math.max(r.sizes.maxTokens, Number(row.max_tokens));
  }
  return [...byKey.values()];
}

/**
 * One merge step: at most `keys` keys of each table merged. Returns how many rows it removed (0 when another
 * collector holds the step, or nothing was left to merge). Every row of those keys crosses to the writer thread,
 * whose heap is capped under a memory limit: the bound is in keys, not rows, so it is kept small (a review found
 * 1,000 keys of 60 unmerged rows each past the 32 MiB cap at 200 MiB; a bound in rows is still to do).
 */
export async function mergeRollups(
  pool: pg.Pool,
  damaged: (what: string) => void,
  keys = 100,
): Promise<number> {
  return inTransaction(pool, async (client) => {
    const lock = await client.query<{ got: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS got',
      [MERGE_LOCK.toString()],
    );
    if (!lock.rows[0]?.got) return 0;
    let removed = 0;
    for (const step of STEPS) {
      const gone = await client.query<Stored>(step.remove, [keys]);
      if (gone.rows.length === 0) continue;
      removed += gone.rows.length;
      await client.query(step.insert, columnsOf(fold(gone.rows, step.table, damaged), step.client));
    }
    return removed;
  });
}
