// The writer's pipelined transactions (pg-transaction.ts inPipelinedTransaction) on a real server: statements sent without
// waiting fail the transaction as awaited ones do, the failure reported is the first one (not the "transaction is
// aborted" of the statements behind it), a deadlock among them runs the transaction again, and a COMMIT the
// server answers as a ROLLBACK is never taken for a commit.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyIn } from '../src/storage/postgres/pg-copy-in.js';
import { createPool } from '../src/storage/postgres/pg-db.js';
import { inPipelinedTransaction } from '../src/storage/postgres/pg-transaction.js';
import { freshPgDatabase, PG_URL } from './backends.js';

const bounds = { max: 2, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 };

describe.skipIf(!PG_URL)('a pipelined transaction', () => {
  let pool: pg.Pool;
  const faults: Error[] = [];
  beforeAll(async () => {
    pool = createPool(await freshPgDatabase(), bounds, (e) => faults.push(e), true);
    await pool.query(
      `CREATE TABLE t (n int PRIMARY KEY);
       CREATE SEQUENCE fail_once;
       CREATE FUNCTION fail_once() RETURNS trigger AS $$
       BEGIN
         IF NEW.n = 13 AND nextval('fail_once') = 1 THEN
           RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01';
         END IF;
         RETURN NEW;
       END $$ LANGUAGE plpgsql;
       CREATE TRIGGER fail_once BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION fail_once();`,
    );
  });
  afterAll(async () => {
    await pool.end();
  });
  const rows = async () =>
    (await pool.query<{ n: number }>('SELECT n FROM t ORDER BY n')).rows.map((r) => r.n);

  it('commits statements sent without waiting, COPY among them, with the ones it waited for', async () => {
    await pool.query('TRUNCATE t');
    const read = await inPipelinedTransaction(pool, async (client, later) => {
      later(client.query('INSERT INTO t VALUES (1)'));
      later(copyIn(client, 'COPY t (n) FROM STDIN', Buffer.from('2\n3\n')));
      const seen = await client.query<{ c: string }>('SELECT count(*)::text AS c FROM t');
      later(client.query('INSERT INTO t VALUES (4)'));
      return seen.rows[0]?.c;
    });
    // The read ran after what was sent before it, in the same transaction.
    expect(read).toBe('3');
    expect(await rows()).toEqual([1, 2, 3, 4]);
  });

  it('reports the statement that failed, not the aborted ones behind it, and commits nothing', async () => {
    await pool.query('TRUNCATE t');
    const attempt = inPipelinedTransaction(pool, async (client, later) => {
      later(client.query('INSERT INTO t VALUES (5)'));
      // A duplicate key: the transaction is aborted here.
      later(client.query('INSERT INTO t VALUES (5)'));
      later(client.query('INSERT INTO t VALUES (6)'));
      // Waited for: fails only because the transaction was aborted before it (25P02).
      await client.query('SELECT 1');
    });
    await expect(attempt).rejects.toMatchObject({ code: '23505' });
    // Without a failure awaited by run, COMMIT would be answered as ROLLBACK: the failure still comes out.
    const silent = inPipelinedTransaction(pool, async (client, later) => {
      later(client.query('INSERT INTO t VALUES (7)'));
      later(client.query('INSERT INTO t VALUES (7)'));
    });
    await expect(silent).rejects.toMatchObject({ code: '23505' });
    expect(await rows()).toEqual([]);
    // The connections are usable after: nothing was left unanswered on them.
    expect(
      await inPipelinedTransaction(pool, async (c) => (await c.query('SELECT 1 AS x')).rows),
    ).toEqual([{ x: 1 }]);
  });

  it('commits nothing when node-postgres refuses a statement before the server sees it', async () => {
    await pool.query('TRUNCATE t');
    // A parameter node-postgres cannot write: it rejects the statement at once, and the server, which never saw
    // it, would commit the rest.
    const unwritable = {
      toPostgres: () => {
        throw new Error('unwritable parameter');
      },
    };
    const attempt = inPipelinedTransaction(pool, async (client, later) => {
      later(client.query('INSERT INTO t VALUES (8)'));
      later(client.query('INSERT INTO t VALUES ($1)', [unwritable]));
      later(client.query('INSERT INTO t VALUES (9)'));
    });
    await expect(attempt).rejects.toThrow(/unwritable parameter/);
    expect(await rows()).toEqual([]);
  });

  it('bounds a stall by the time since the last answer, not since a statement was sent', async () => {
    // Each statement within the server's 1 s timeout, the three together past the 2 s a connection may go
    // unanswered: node-postgres's read timeout, counted from the sending, failed the third.
    const short = createPool(
      await freshPgDatabase(),
      { ...bounds, statementTimeoutMs: 1_000 },
      (e) => faults.push(e),
      true,
    );
    try {
      const slept = await inPipelinedTransaction(short, async (client, later) => {
        later(client.query('SELECT pg_sleep(0.8)'));
        later(client.query('SELECT pg_sleep(0.8)'));
        return (await client.query<{ n: number }>('SELECT pg_sleep(0.8), 1 AS n')).rows[0]?.n;
      });
      expect(slept).toBe(1);
    } finally {
      await short.end();
    }
  });

  it('runs the whole transaction again when a statement sent without waiting loses a deadlock', async () => {
    await pool.query('TRUNCATE t');
    let attempts = 0;
    await inPipelinedTransaction(pool, async (client, later) => {
      attempts++;
      later(client.query('INSERT INTO t VALUES (12)'));
      later(client.query('INSERT INTO t VALUES (13)'));
      // Behind the deadlock: aborted in the first attempt, and what that attempt throws.
      await client.query('SELECT 1');
    });
    expect(attempts).toBe(2);
    expect(await rows()).toEqual([12, 13]);
    expect(faults).toEqual([]);
  });
});
