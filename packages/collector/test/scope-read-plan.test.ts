// A conversation's loop read goes through the trace index on PostgreSQL before the server has statistics of
// the tables (a new database, autovacuum's first ANALYZE up to a minute away): its planner joined the
// `IN (subquery)` form by a scan of every call row, 57 ms a read at 150,000 calls, on every batch that touched
// a conversation (docs/benchmarks.md). Rows are made by SQL here: the plan, not the write path, is under test.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { toDollars } from '../src/storage/postgres/pg-db.js';
import { scopeCallsSql, scopeModelCallsSql } from '../src/storage/sql/scope-sql.js';
import { BACKENDS } from './backends.js';
import { useStores } from './conformance/stores.js';

const TRACES = 20_000;
const CALLS_PER_TRACE = 6;
const CONVERSATIONS = 1_000;

type PlanNode = {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
};

/** Rows of `table` the plan read, kept or filtered out. */
function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, p) => sum + rowsRead(p, table), 0);
}

async function planOf(client: pg.Client, sql: string, values: unknown[]): Promise<PlanNode> {
  const explained = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${toDollars(sql)}`,
    values,
  );
  const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
  if (!plan) throw new Error('EXPLAIN gave no plan');
  return plan;
}

const postgres = BACKENDS.find((b) => b.name === 'postgres');
describe.skipIf(!postgres?.available)(
  'conversation loop reads without statistics: postgres',
  () => {
    const { fresh, openAt } = useStores(postgres as NonNullable<typeof postgres>);

    it('reads the calls and model calls of the conversation only, not every row', async () => {
      const place = await fresh();
      await (await openAt(place)).close();
      const client = new pg.Client(place.db);
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
        const calls = await planOf(client, scopeCallsSql('conversation', 0, 'postgres'), [
          'conv-7',
          'conv-7',
        ]);
        expect(calls['Actual Rows']).toBe(perConversation * CALLS_PER_TRACE);
        // Each call of the conversation's traces once (a bitmap scan may read a page's rows again).
        expect(rowsRead(calls, 'tool_call_rows')).toBeLessThanOrEqual(
          2 * perConversation * CALLS_PER_TRACE,
        );

        const models = await planOf(client, scopeModelCallsSql('conversation', 'postgres'), [
          'conv-7',
          '0',
        ]);
        expect(models['Actual Rows']).toBe(perConversation);
        expect(rowsRead(models, 'model_calls')).toBeLessThanOrEqual(2 * perConversation);
      } finally {
        await client.end();
      }
    });
  },
);
