// Retention on PostgreSQL: one small transaction deletes the oldest traces before a cutoff, with their calls,
// blocks and conversations, and the rollup and detector rows older than it. One collector at a time (an
// advisory lock the others skip); a step that meets a fault rolls back whole and the next interval retries it.
import type pg from 'pg';
import { NS_PER_HOUR, NS_PER_MINUTE } from '../sql/db.js';
import { MERGE_LOCK } from './pg-rollup-merge.js';
import { ROLLUP_TABLES } from './pg-rollups.js';
import { inTransaction } from './pg-transaction.js';

/** pg_try_advisory_xact_lock key of retention: one collector deletes while the others skip the step. */
const RETENTION_LOCK = 8_390_047_142_397_570_929n;

/** Deletes at most `maxTraces` traces that started before the cutoff; returns how many. */
export function deleteBefore(pool: pg.Pool, cutoffNs: bigint, maxTraces: number): Promise<number> {
  return inTransaction(pool, async (client) => {
    const lock = await client.query<{ got: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1) AS got',
      [RETENTION_LOCK.toString()],
    );
    if (!lock.rows[0]?.got) return 0;
    // The merge step's lock, waited for before any row is touched: a merge running now would insert merged rows
    // below the cutoff after the deletes below had looked (pg-rollup-merge.ts), and a batch must not queue
    // behind row locks this step holds while it waits. The merge never waits for this one.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MERGE_LOCK.toString()]);
    // SKIP LOCKED: a trace a batch is writing right now is left for the next step.
    const old = await client.query<{ seq: string }>(
      'SELECT seq FROM traces WHERE first_ns < $1 ORDER BY first_ns LIMIT $2 FOR UPDATE SKIP LOCKED',
      [cutoffNs.toString(), maxTraces],
    );
    const seqs = old.rows.map((r) => r.seq);
    if (seqs.length > 0) {
      const conversations = await client.query<{ conversation_id: string }>(
        'SELECT DISTINCT conversation_id FROM conversation_traces WHERE trace_seq = ANY($1::bigint[])',
        [seqs],
      );
      for (const table of ['span_blocks', 'tool_call_rows', 'model_calls', 'conversation_traces'])
        await client.query(`DELETE FROM ${table} WHERE trace_seq = ANY($1::bigint[])`, [seqs]);
      await client.query('DELETE FROM traces WHERE seq = ANY($1::bigint[])', [seqs]);
      await client.query(
        `DELETE FROM conversations c WHERE c.conversation_id = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM conversation_traces ct WHERE ct.conversation_id = c.conversation_id)`,
        [conversations.rows.map((r) => r.conversation_id)],
      );
    }
    const minute = (cutoffNs / NS_PER_MINUTE).toString();
    const hour = (cutoffNs / NS_PER_HOUR).toString();
    for (const [table, column] of ROLLUP_TABLES)
      await client.query(`DELETE FROM ${table} WHERE ${column} < $1`, [
        column === 'minute' ? minute : hour,
      ]);
    for (const table of ['flags', 'tool_schemas', 'tool_shapes'])
      await client.query(`DELETE FROM ${table} WHERE last_ns < $1`, [cutoffNs.toString()]);
    await client.query('DELETE FROM tool_paths WHERE minute < $1', [minute]);
    return seqs.length;
  });
}
