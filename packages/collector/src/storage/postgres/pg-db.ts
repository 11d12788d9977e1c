// node-postgres plumbing shared by the PostgreSQL backend: the pool (with its idle-client errors reported, not
// thrown), ReadDb over it (`?` placeholders turned into `$n` once per SQL text), and a transaction helper that
// retries a batch that lost a deadlock or serialization race to another collector.
import pg from 'pg';
import type { ReadDb, Row, SqlValue } from '../sql/db.js';

export function createPool(url: string, max: number, onError: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'toolscope-collector' });
  // An idle connection that the server closes emits 'error' on the pool; unhandled, it would end the process.
  pool.on('error', onError);
  return pool;
}

const numbered = new Map<string, string>();

/** `?` placeholders as `$1, $2, …` (the shared queries have no `?` inside string literals). */
export function toDollars(sql: string): string {
  let out = numbered.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    if (numbered.size > 1024) numbered.clear();
    numbered.set(sql, out);
  }
  return out;
}

export function pgReadDb(pool: pg.Pool, damaged: (what: string) => void): ReadDb {
  return {
    damaged,
    byteOrder: (column) => `${column} COLLATE "C"`,
    all: async (sql: string, params: readonly SqlValue[] = []) => {
      const result = await pool.query(toDollars(sql), params.map(param));
      return result.rows as Row[];
    },
  };
}

/** node-postgres sends a bigint through toString(); numbers and strings as they are. */
export function param(v: SqlValue): string | number | null {
  return typeof v === 'bigint' ? v.toString() : v;
}

/** SQLSTATEs after which the whole transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

export async function inTransaction<T>(
  pool: pg.Pool,
  run: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const value = await run(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : '';
      if (!RETRYABLE.has(String(code)) || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    } finally {
      client.release(broken);
    }
  }
}
