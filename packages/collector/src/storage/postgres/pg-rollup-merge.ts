// The merge step of the appended rollup rows (pg-rollups.ts): of the keys that have rows not yet merged, a bounded
// number per table, a bounded number of rows (their merged row first) are deleted, and each key gets one row in
// their place with the counts added, the histograms merged and the maxima kept. A key with more rows than that
// keeps the rest for the next step, so a step's time has a bound, whatever backlog a merge that could not run
// left (a key gains a row per batch). One transaction, so a read sees either the rows or their merge, never both
// or neither; one collector at a time (an advisory lock, tried, not waited for; retention waits for it).
//
// The rows are read through a cursor, a page at a time, and folded as they come: the writer thread's heap is
// capped under a memory limit (a step that took every row of 1,000 keys at once ended that thread on each tick).
// The transaction is REPEATABLE READ, so the DELETE (by the rows' ctids) removes exactly the rows the cursor
// read, and a row a batch commits meanwhile is not in the snapshot. Batches only ever insert rollup rows, so
// nothing they do waits for the merge; a concurrent change to a row it read ends the step with 40001, run again.
import type pg from 'pg';
import { addSerialized } from '../../aggregation/histogram.js';
import type { Rollup, RollupSide, RollupTable } from '../../aggregation/rollups.js';
import { inTransaction } from './pg-db.js';
import { columnsOf, columnTypes, keyColumns, ROLLUP_TABLES, unnest } from './pg-rollups.js';

/** pg_try_advisory_xact_lock key of the merge step (and of retention's deletes of rollup rows). */
export const MERGE_LOCK = 8_390_047_142_397_570_930n;
/** Rows fetched from the cursor at a time: what the writer thread holds of them at once. */
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

/** What one step did: rows removed, and whether a table had more keys or rows to merge than a step takes. */
export type MergeStep = { removed: number; more: boolean };

function statements(table: string, column: string, client: boolean) {
  const key = keyColumns(column, client);
  const names = key.split(', ');
  const match = names.map((c) => `r.${c} = k.${c}`).join(' AND ');
  return {
    // The keys and their rows in one statement, so both come from the same moment.
    read: `DECLARE merge_rows NO SCROLL CURSOR FOR
      SELECT r.ctid::text AS ctid, r.${column}::text AS bucket, r.tool, r.version, r.code, r.side,
        ${client ? 'r.client_name, r.client_version' : `'' AS client_name, '' AS client_version`},
        r.calls::text, r.errors::text, r.hist, r.bytes_hist, r.tokens_hist, r.max_bytes::text, r.max_tokens::text
      FROM ${table} AS r
      JOIN (SELECT DISTINCT ${key} FROM ${table} WHERE NOT merged LIMIT $1) AS k ON ${match}
      ORDER BY r.merged DESC
      LIMIT $2`,
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

/** Folds rows into their keys' rollups (a stored histogram that is not valid counts as empty). */
function foldInto(
  byKey: Map<string, Rollup>,
  rows: Stored[],
  table: RollupTable,
  said: (what: string) => void,
): void {
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
}

/**
 * A step's bounds: `keys` per table (default 100) and `rows` per table (default 20,000: about 0.3 s of the
 * server's time); `afterRead` runs between a table's read and its DELETE.
 */
export type MergeOptions = {
  keys?: number;
  rows?: number;
  afterRead?: (table: RollupTable) => Promise<void>;
};

/** One merge step. Removes nothing when another collector holds the step. */
export async function mergeRollups(
  pool: pg.Pool,
  damaged: (what: string) => void,
  { keys = 100, rows = 20_000, afterRead }: MergeOptions = {},
): Promise<MergeStep> {
  return inTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const lock = await client.query<{ got: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS got',
      [MERGE_LOCK.toString()],
    );
    const done: MergeStep = { removed: 0, more: false };
    if (!lock.rows[0]?.got) return done;
    for (const step of STEPS) {
      const byKey = new Map<string, Rollup>();
      const said = (what: string) => damaged(`${step.table}: ${what}`);
      const read: string[] = [];
      await client.query(step.read, [keys, rows]);
      for (;;) {
        const page = await client.query<Stored>(`FETCH ${PAGE_ROWS} FROM merge_rows`);
        foldInto(byKey, page.rows, step.table, said);
        for (const row of page.rows) read.push(row.ctid);
        if (page.rows.length < PAGE_ROWS) break;
      }
      await client.query('CLOSE merge_rows');
      if (read.length === 0) continue;
      // A full step leaves keys or rows over: another step may follow at once.
      done.more ||= byKey.size >= keys || read.length >= rows;
      await afterRead?.(step.table);
      const removed = await client.query(step.remove, [read]);
      // The same snapshot reads and deletes: a difference is a fault of this code, and the step rolls back.
      if (removed.rowCount !== read.length)
        throw new Error(
          `${step.table}: the merge read ${read.length} rows but would delete ${removed.rowCount}`,
        );
      done.removed += read.length;
      await client.query(step.insert, columnsOf([...byKey.values()], step.client));
    }
    return done;
  });
}
