// A conversation's loop read goes through the trace index on PostgreSQL before the server has statistics of
// the tables (a new database, autovacuum's first ANALYZE up to a minute away): its planner joined the
// `IN (subquery)` form by a scan of every call row, 57 ms a read at 150,000 calls, on every batch that touched
// a conversation (docs/decisions/0068-pg-server-work-per-span.md). The API's conversation filter and recovery's
// conversation read go the same way (storage/sql/in-rows.ts), and so does the logical-call read, which planned
// well in either form here: their statements are taken from the real readers on PostgreSQL's ReadDb as they
// run. Rows are made by SQL here: the plan, not the write path, is under test.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pgReadDb } from '../src/storage/postgres/pg-db.js';
import type { ReadDb, SqlValue } from '../src/storage/sql/db.js';
import { sqlReaders } from '../src/storage/sql/readers.js';
import { scopeCallsSql, scopeModelCallsSql } from '../src/storage/sql/scope-sql.js';
import { BACKENDS } from './backends.js';
import { useStores } from './conformance/stores.js';
import { analyzedPlan, rowsRead } from './plan-reads.js';

const TRACES = 20_000;
const CALLS_PER_TRACE = 6;
const CONVERSATIONS = 1_000;

const postgres = BACKENDS.find((b) => b.name === 'postgres');
describe.skipIf(!postgres?.available)(
  'conversation loop reads without statistics: postgres',
  () => {
    const { fresh, openAt } = useStores(postgres as NonNullable<typeof postgres>);

    it('reads the calls and model calls of the conversation only, not every row', async () => {
      const place = await fresh();
      await (await openAt(place)).close();
      const client = new pg.Client(place.db);
      const pool = new pg.Pool({ connectionString: place.db, max: 2 });
      await client.connect();
      try {
        const tables = ['traces', 'tool_call_rows', 'conversation_traces', 'model_calls'];
        // No ANALYZE may run while the rows go in: the plan must be the one a database gets before any has.
        for (const t of tables)
          await client.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
        await client.query(
          `INSERT INTO traces (trace_id, first_ns)
         SELECT lpad(to_hex(g), 32, '0'), g::bigint * 1000000 FROM generate_series(1, ${TRACES}) g`,
        );
        await client.query(
          `INSERT INTO tool_call_rows (trace_seq, start_ns, duration_ms, tool_id, attempt, is_error,
           partial_effect, kind, span_id, conversation_id)
         SELECT t.seq, t.first_ns + k, 1, 1, 1, 0, 0, 1, lpad(to_hex(k), 16, '0'), 'conv-' || (t.seq % ${CONVERSATIONS})
         FROM traces t, generate_series(1, ${CALLS_PER_TRACE}) k`,
        );
        await client.query(
          `INSERT INTO conversation_traces (conversation_id, trace_seq)
         SELECT 'conv-' || (seq % ${CONVERSATIONS}), seq FROM traces`,
        );
        await client.query(
          `INSERT INTO model_calls (trace_seq, start_ns, end_ns)
         SELECT seq, first_ns, first_ns + 10 FROM traces`,
        );
        const stats = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stats WHERE tablename = ANY($1::text[])`,
          [tables],
        );
        expect(Number(stats.rows[0]?.n)).toBe(0);

        const perConversation = TRACES / CONVERSATIONS;
        const calls = await analyzedPlan(client, scopeCallsSql('conversation', 0, 'postgres'), [
          'conv-7',
          'conv-7',
        ]);
        expect(calls['Actual Rows']).toBe(perConversation * CALLS_PER_TRACE);
        // Each call of the conversation's traces once (a bitmap scan may read a page's rows again).
        expect(rowsRead(calls, 'tool_call_rows')).toBeLessThanOrEqual(
          2 * perConversation * CALLS_PER_TRACE,
        );

        const models = await analyzedPlan(client, scopeModelCallsSql('conversation', 'postgres'), [
          'conv-7',
          '0',
        ]);
        expect(models['Actual Rows']).toBe(perConversation);
        expect(rowsRead(models, 'model_calls')).toBeLessThanOrEqual(2 * perConversation);

        // The readers' own statements, each then explained as it ran. The conversation's first call of each
        // trace failed, for recovery to read its scope.
        await client.query(
          `UPDATE tool_call_rows SET is_error = 1 WHERE conversation_id = 'conv-7' AND span_id = lpad(to_hex(1), 16, '0')`,
        );
        const ran: { sql: string; params: readonly SqlValue[] }[] = [];
        const pgDb = pgReadDb(pool, () => undefined, { check: () => {}, translate: (e) => e }, 4);
        const db: ReadDb = {
          ...pgDb,
          all: (sql, params = []) => {
            ran.push({ sql, params });
            return pgDb.all(sql, params);
          },
        };
        const readers = sqlReaders(db);
        const page = await readers.calls({
          conversationId: 'conv-7',
          sinceNs: 0n,
          untilNs: BigInt(TRACES + 1) * 1_000_000n,
          limit: 50,
        });
        expect(page.calls).toHaveLength(50);
        const recovery = await readers.recoveryScopes(
          0n,
          BigInt(TRACES + 1) * 1_000_000n,
          undefined,
          10,
        );
        expect(recovery.failures).toBe(perConversation);
        // A trace of the conversation, whose calls have no logical facts: none come back.
        const trace = (7).toString(16).padStart(32, '0');
        expect(await readers.logicalCalls([trace])).toEqual([]);
        const reads = ran.filter(
          (r) => r.sql.includes('conversation_traces') || r.sql.includes('FROM traces WHERE'),
        );
        // One read each: the page's, recovery's scope and the logical calls'.
        expect(reads).toHaveLength(3);
        for (const r of reads) {
          const plan = await analyzedPlan(client, r.sql, [...r.params]);
          expect(rowsRead(plan, 'tool_call_rows')).toBeLessThanOrEqual(
            2 * perConversation * CALLS_PER_TRACE,
          );
        }
      } finally {
        await pool.end();
        await client.end();
      }
    });
  },
);
