// The merge step of the appended rollup rows (pg-rollups.ts): per table, a bounded run of rows not yet merged,
// in key order (from their partial index, so the server reads no more than it returns), and the merged row of
// each of their keys, are deleted, and each key gets one merged row in their place with the counts added, the
// histograms merged and the maxima kept. A key cut off by the bound keeps its other rows for the next step. So a
// step's time and memory have a bound whatever backlog a merge that could not run left (a key gains a row per
// batch). One transaction, so a read sees either the rows or their merge, never both or neither; one collector
// at a time (an advisory lock, tried, not waited for; retention waits for it, pg-retention.ts).
//
// The rows are read through a cursor, a page at a time, and folded as they come: the writer thread's heap is
// capped under a memory limit. The transaction is REPEATABLE READ, so the DELETE (by the rows' ctids) removes
// exactly the rows read, and a row a batch commits meanwhile is not in the snapshot. Batches only ever insert
// rollup rows, so nothing they do waits for the merge; a concurrent change to a row it read ends the step with
// 40001, and it runs again. A step rewrites rows, so it runs only on the schema it was written for.
import type pg from 'pg';
import { addSerialized } from '../../aggregation/histogram.js';
import type { Rollup, RollupSide, RollupTable } from '../../aggregation/rollups.js';
import { PG_MIGRATIONS } from './migrations.js';
import { columnsOf, columnTypes, keyColumns, keysOf, ROLLUP_TABLES, unnest } from './pg-rollups.js';
import { inTransaction } from './pg-transaction.js';

/** pg_try_advisory_xact_lock key of the merge step (and of retention's deletes of rollup rows). */
export const MERGE_LOCK = 8_390_047_142_397_570_930n;
/** Rows fetched from the cursor at a time. */
const PAGE_ROWS = 500;

/** A rollup row as the merge step reads it back, with where it is (for the DELETE). */
type Stored = {
  ctid: string;
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

/**
 * What one step did: rows removed; whether a table filled a step (more may be waiting); the database's schema
 * version when it is not this collector's, and the step did nothing.
 */
export type MergeStep = { removed: number; more: boolean; foreignSchema?: number };

function statements(table: string, column: string, client: boolean) {
  const key = keyColumns(column, client);
  const names = key.split(', ');
  const columns = `r.ctid::text AS ctid, r.${column}::text AS bucket, r.tool, r.version, r.code, r.side,
    ${client ? 'r.client_name, r.client_version' : `'' AS client_name, '' AS client_version`},
    r.calls::text, r.errors::text, r.hist, r.bytes_hist, r.tokens_hist, r.max_bytes::text, r.max_tokens::text`;
  return {
    unmerged: `DECLARE merge_rows NO SCROLL CURSOR FOR
      SELECT ${columns} FROM ${table} AS r WHERE NOT merged ORDER BY ${key} LIMIT $1`,
    merged: `SELECT ${columns} FROM ${table} AS r
      JOIN ${unnest(columnTypes(client).slice(0, names.length), 1)} AS k(${key})
        ON ${names.map((c) => `r.${c} = k.${c}`).join(' AND ')}
      WHERE r.merged`,
    remove: `DELETE FROM ${table} WHERE ctid = ANY($1::tid[])`,
    insert: `INSERT INTO ${table} (${key}, calls, errors, hist, bytes_hist, tokens_hist, max_bytes, max_tokens,
        merged)
      SELECT *, TRUE FROM ${unnest(columnTypes(client), 1)}`,
  };
}

const STEPS = ROLLUP_TABLES.map(([table, column, client]) => ({
  table,
  client,
  ...statements(table, column, client),
}));

const keyOf = (row: Stored) =>
  `${row.bucket}\u0000${row.tool}\u0000${row.version}\u0000${row.code}\u0000${row.side}\u0000${row.client_name}\u0000${row.client_version}`;

/** Folds a row into its key's rollup (a stored histogram that is not valid counts as empty). */
function foldRow(
  byKey: Map<string, Rollup>,
  id: string,
  row: Stored,
  table: RollupTable,
  said: (what: string) => void,
): void {
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

/**
 * A step's bounds per table: `rows` unmerged rows (default 10,000) of at most `keys` keys (default 500: what
 * the thread holds is a rollup per key and a page); `afterRead` runs between a table's reads and its DELETE.
 */
export type MergeOptions = {
  rows?: number;
  keys?: number;
  afterRead?: (table: RollupTable) => Promise<void>;
};

/** One merge step. Removes nothing when another collector holds the step. */
export async function mergeRollups(
  pool: pg.Pool,
  damaged: (what: string) => void,
  { rows = 10_000, keys = 500, afterRead }: MergeOptions = {},
): Promise<MergeStep> {
  return inTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const lock = await client.query<{ got: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS got',
      [MERGE_LOCK.toString()],
    );
    const done: MergeStep = { removed: 0, more: false };
    if (!lock.rows[0]?.got) return done;
    const schema = await client.query<{ version: number }>('SELECT version FROM toolscope_schema');
    const version = schema.rows[0]?.version ?? 0;
    if (version !== PG_MIGRATIONS.length) return { ...done, foreignSchema: version };
    for (const step of STEPS) {
      const byKey = new Map<string, Rollup>();
      const said = (what: string) => damaged(`${step.table}: ${what}`);
      const ctids: string[] = [];
      let full = false;
      await client.query(step.unmerged, [rows]);
      pages: for (;;) {
        const page = await client.query<Stored>(`FETCH ${PAGE_ROWS} FROM merge_rows`);
        for (const row of page.rows) {
          const id = keyOf(row);
          // In key order: a key past the bound starts the next step.
          if (byKey.size >= keys && !byKey.has(id)) {
            full = true;
            break pages;
          }
          foldRow(byKey, id, row, step.table, said);
          ctids.push(row.ctid);
        }
        if (page.rows.length < PAGE_ROWS) break;
      }
      await client.query('CLOSE merge_rows');
      if (ctids.length === 0) continue;
      done.more ||= full || ctids.length >= rows;
      const merged = await client.query<Stored>(
        step.merged,
        keysOf([...byKey.values()], step.client),
      );
      for (const row of merged.rows) {
        foldRow(byKey, keyOf(row), row, step.table, said);
        ctids.push(row.ctid);
      }
      await afterRead?.(step.table);
      const removed = await client.query(step.remove, [ctids]);
      // The same snapshot reads and deletes: a difference is a fault of this code, and the step rolls back.
      if (removed.rowCount !== ctids.length)
        throw new Error(
          `${step.table}: the merge read ${ctids.length} rows but would delete ${removed.rowCount}`,
        );
      done.removed += ctids.length;
      await client.query(step.insert, columnsOf([...byKey.values()], step.client));
    }
    return done;
  });
}
