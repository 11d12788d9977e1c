// A call-id prefix that every call has ("call_") reads one page of the chunk's newest block from the (block,
// call_id) index, on every backend, however many older calls the window holds: PostgreSQL once walked every
// call in trace order to join it with its trace before the LIMIT (docs/benchmarks.md, bench:query).
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { toDollars } from '../src/storage/postgres/pg-db.js';
import { prefixQuery } from '../src/storage/sql/call-search.js';
import type { ReadDb } from '../src/storage/sql/db.js';
import { inRows, type SqlDialect } from '../src/storage/sql/in-rows.js';
import { BACKENDS } from './backends.js';
import { callSpan, HOUR_NS, nowNs } from './conformance/spans.js';
import { useStores } from './conformance/stores.js';
import { analyzedPlan, rowsRead } from './plan-reads.js';
import { writeSpans } from './write-spans.js';

/** Three blocks of 4,096 rows: the newest holds the last 500 calls; all started within the hour. */
const CALLS = 2 * 4_096 + 500;
/** A page of the prefix query is 50 rows, each read once from the index and once by its key for the view. */
const MOST_ROWS_READ = 150;

/** The query text as each backend's reader writes it (pg-db.ts, sqlite/read-db.ts); never run through it. */
function textOf(backend: SqlDialect): ReadDb {
  return {
    byteOrder: (column) => (backend === 'postgres' ? `${column} COLLATE "C"` : column),
    inRows: (column, subquery) => inRows(backend, column, subquery),
    all: () => Promise.reject(new Error('the test runs the query itself')),
    damaged: () => undefined,
  };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`call-id prefix plan: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('reads one page of the newest block for a prefix every call has', async () => {
      const place = await fresh();
      const s = await openAt(place);
      const spans = Array.from({ length: CALLS }, (_, i) =>
        callSpan({ trace: 1 + i, span: 1, callId: `call_${i}`, agoMs: 60_000 + (CALLS - i) }),
      );
      for (let i = 0; i < spans.length; i += 1_000) await writeSpans(s, spans.slice(i, i + 1_000));
      const newest = BigInt(CALLS) / 4_096n;
      const { sql, params } = prefixQuery(textOf(backend.name), {
        chunk: [newest],
        sinceNs: nowNs() - HOUR_NS,
        untilNs: nowNs() + HOUR_NS,
        q: 'call_',
      });
      const values = params.map((v) => (typeof v === 'bigint' ? v.toString() : v));
      if (backend.name === 'postgres') {
        const client = new pg.Client(place.db);
        await client.connect();
        try {
          // Statistics as autovacuum would have them on a server that has run a while. At this size a scan of
          // the whole table (a few hundred pages) costs less than 50 lookups by key, and the planner rightly
          // takes it; at a million calls it costs hundreds of times more. Scans are priced out here so the
          // plan is the one a large table gets: the old query's walk in trace order is not a scan, and still
          // reads every older call.
          await client.query('ANALYZE');
          await client.query('SET enable_seqscan = off');
          const found = await client.query(toDollars(sql), values);
          expect(found.rows).toHaveLength(50);
          const plan = await analyzedPlan(client, sql, values);
          expect(rowsRead(plan, 'tool_call_rows')).toBeLessThanOrEqual(MOST_ROWS_READ);
        } finally {
          await client.end();
        }
      } else {
        const db = new Database(place.db, { readonly: true });
        try {
          expect(db.prepare(sql).all(...params)).toHaveLength(50);
          const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {
            detail: string;
          }[];
          const details = plan.map((p) => p.detail).join('\n');
          // The index's own order: no sort of the chunk's matches before the LIMIT.
          expect(details).toContain('USING INDEX tool_calls_by_call_block');
          expect(details).not.toContain('TEMP B-TREE');
        } finally {
          db.close();
        }
      }
    });
  });
}
