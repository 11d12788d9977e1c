// The PostgreSQL backend (`--db postgres://…`): stateless collectors, as many as needed, share one database. Writes
// are one transaction per batch (pg-writer.ts), acknowledged after COMMIT; reads are the shared SQL queries
// (storage/sql) on the pool; retention deletes in small transactions, one collector at a time.

import { createLoopDetection, type LoopThresholds } from '../../detection/index.js';
import type { DriftThresholds } from '../../detectors/drift.js';
import type { Storage } from '../contract.js';
import { redactDbUrl } from '../open.js';
import { encodeThresholds, READ_THRESHOLDS_KEY, resolveThresholds } from '../read-thresholds.js';
import { NS_PER_HOUR, NS_PER_MINUTE } from '../sql/db.js';
import { readerMethods, SqlReader } from '../sql/reader.js';
import { planWrite } from '../write-plan.js';
import { migratePostgres } from './migrations.js';
import { createPool, inTransaction, pgReadDb } from './pg-db.js';
import { PgWriter } from './pg-writer.js';

export type PostgresOptions = {
  /** Most connections this process opens (default 10). */
  poolSize?: number;
  thresholds?: Partial<LoopThresholds>;
  drift?: Partial<DriftThresholds>;
  rememberDrift?: boolean;
  storedDrift?: boolean;
  /** Told of errors of idle connections (the pool replaces them). */
  onPoolError?: (error: Error) => void;
  /** Told of stored values a read could not use. */
  onDamage?: (what: string) => void;
};

/** pg_try_advisory_xact_lock key of retention: one collector deletes while the others skip the step. */
const RETENTION_LOCK = 8_390_047_142_397_570_929n;
const warnDamage = (what: string) => process.emitWarning(`toolscope: ${what}`);

export async function openPostgresStorage(
  url: string,
  options: PostgresOptions = {},
): Promise<Storage> {
  const poolSize = options.poolSize ?? 10;
  const pool = createPool(url, poolSize, (error) =>
    (options.onPoolError ?? ((e: Error) => process.emitWarning(`toolscope: ${e.message}`)))(error),
  );
  try {
    const client = await pool.connect();
    let failure: Error | undefined;
    try {
      await migratePostgres(client);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A connection whose migration failed is destroyed, not returned to the pool.
      client.release(failure);
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  const stored = options.storedDrift
    ? (
        await pool.query<{ value: string }>('SELECT value FROM toolscope_settings WHERE key = $1', [
          READ_THRESHOLDS_KEY,
        ])
      ).rows[0]?.value
    : undefined;
  const drift = resolveThresholds(options, stored);
  if (options.rememberDrift)
    await pool.query(
      `INSERT INTO toolscope_settings (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [READ_THRESHOLDS_KEY, encodeThresholds(drift)],
    );
  const writer = new PgWriter(pool, createLoopDetection(options.thresholds));
  const reader = new SqlReader(pgReadDb(pool, options.onDamage ?? warnDamage), drift);
  return {
    backend: 'postgres',
    location: redactDbUrl(url),
    // Half the pool writes, so reads always find a connection.
    concurrentWrites: Math.max(2, Math.floor(poolSize / 2)),
    // Packed here, by the collectors, which scale out; not by the one server's TOAST (decision 0011).
    write: (spans) => writer.write(planWrite(spans, true)),
    deleteBefore: (cutoffNs, maxTraces) =>
      inTransaction(pool, async (client) => {
        const lock = await client.query<{ got: boolean }>(
          'SELECT pg_try_advisory_xact_lock($1) AS got',
          [RETENTION_LOCK.toString()],
        );
        if (!lock.rows[0]?.got) return 0;
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
          for (const table of [
            'span_blocks',
            'tool_call_rows',
            'model_calls',
            'conversation_traces',
          ])
            await client.query(`DELETE FROM ${table} WHERE trace_seq = ANY($1::bigint[])`, [seqs]);
          await client.query('DELETE FROM traces WHERE seq = ANY($1::bigint[])', [seqs]);
          await client.query(
            `DELETE FROM conversations c WHERE c.conversation_id = ANY($1::text[])
               AND NOT EXISTS (SELECT 1 FROM conversation_traces ct WHERE ct.conversation_id = c.conversation_id)`,
            [conversations.rows.map((r) => r.conversation_id)],
          );
        }
        const minute = (cutoffNs / NS_PER_MINUTE).toString();
        await client.query('DELETE FROM tool_minutes WHERE minute < $1', [minute]);
        await client.query('DELETE FROM tool_hours WHERE hour < $1', [
          (cutoffNs / NS_PER_HOUR).toString(),
        ]);
        for (const table of ['flags', 'tool_schemas', 'tool_shapes'])
          await client.query(`DELETE FROM ${table} WHERE last_ns < $1`, [cutoffNs.toString()]);
        await client.query('DELETE FROM tool_paths WHERE minute < $1', [minute]);
        return seqs.length;
      }),
    ...readerMethods(reader),
    ready: async () => {
      try {
        const found = await pool.query<{ version: number; replica: boolean }>(
          'SELECT version, pg_is_in_recovery() AS replica FROM toolscope_schema',
        );
        const row = found.rows[0];
        if (!row) return { ok: false, reason: 'schema version row missing' };
        // A standby answers reads but refuses every write.
        if (row.replica) return { ok: false, reason: 'the database is a read-only standby' };
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },
    sizeBytes: async () => {
      const r = await pool.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
      return Number(r.rows[0]?.n ?? 0);
    },
    close: () => pool.end(),
  };
}
