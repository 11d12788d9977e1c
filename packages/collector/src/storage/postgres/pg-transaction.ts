// Transactions of the write path: run again after a deadlock, rolled back on any other failure, their connection
// destroyed after a connection fault. A pipelined one (inPipelinedTransaction) sends what it needs no answer to
// without waiting; on a pipelined pool each attempt is watched for a server that stops answering.
import type pg from 'pg';
import { stallBounds } from './pg-db.js';
import { isConnectionFault } from './pg-health.js';

/** SQLSTATEs after which the whole transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

export function inTransaction<T>(
  pool: pg.Pool,
  run: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return attempts(pool, async (client) => {
    await client.query('BEGIN');
    const value = await run(client);
    await client.query('COMMIT');
    return value;
  });
}

/** Registers a statement whose answer the transaction does not wait for: its failure still fails the commit. */
export type Later = (statement: Promise<unknown>) => void;

/**
 * A statement sent now whose answer is awaited further on: its failure is not an unhandled rejection meanwhile
 * (the transaction may fail first on a statement before it, which is then the failure reported).
 */
export function sent<T>(statement: Promise<T>): Promise<T> {
  statement.catch(() => undefined);
  return statement;
}

/**
 * A transaction on a pipelined connection (createPool's `pipeline`): BEGIN goes out with the first statement, the
 * statements `run` hands to `later` go out without waiting for their answers, and COMMIT right behind the last.
 * The server runs them in order and answers each; each answer is then awaited in that order, so the first
 * failure is the one reported (the statements after it fail only because the transaction was aborted), and a
 * COMMIT of an aborted transaction, which the server answers as a ROLLBACK and not as an error, is never taken
 * for a commit. Measured against a round trip per statement: docs/decisions/0082.
 */
export function inPipelinedTransaction<T>(
  pool: pg.Pool,
  run: (client: pg.PoolClient, later: Later) => Promise<T>,
): Promise<T> {
  return attempts(pool, async (client) => {
    const pending: Promise<unknown>[] = [];
    let failed = false;
    // Awaited below, in order.
    const later: Later = (statement) => {
      statement.catch(() => {
        failed = true;
      });
      pending.push(statement);
    };
    later(client.query('BEGIN'));
    let value: T;
    try {
      value = await run(client, later);
    } catch (error) {
      // Whatever run left unanswered is settled before the connection is rolled back or handed on.
      throw rootFailure(error, await Promise.allSettled(pending));
    }
    // node-postgres refuses a statement whose parameters it cannot write before the server sees it: the
    // transaction is not aborted then, and a COMMIT would keep the rest of it. The refusal is synchronous, its
    // promise's rejection two microtasks on (node-postgres's own catch, then `failed`'s): three hops let it show
    // (pg-pipeline.test.ts fails without them). Waiting for the next turn instead (setImmediate) held COMMIT
    // behind other writes' work and cost 2-16 % of bench:ingest in three pairs.
    for (let hop = 0; hop < 3; hop++) await null;
    if (failed) throw firstFailure(await Promise.allSettled(pending));
    later(client.query('COMMIT'));
    for (const statement of pending) await statement;
    return value;
  });
}

/** The SQLSTATE of every statement after the first failure in a transaction (in_failed_sql_transaction). */
const ABORTED = '25P02';
const codeOf = (error: unknown): string =>
  typeof error === 'object' && error !== null ? String(Reflect.get(error, 'code') ?? '') : '';

/**
 * What failed a pipelined transaction first: `thrown` (a statement run waited for), unless it failed only because
 * an earlier statement sent without waiting had aborted the transaction; then that statement's failure, which
 * decides whether the transaction is run again (a deadlock) or reported.
 */
function rootFailure(thrown: unknown, sent: PromiseSettledResult<unknown>[]): unknown {
  if (codeOf(thrown) !== ABORTED) return thrown;
  const first = firstFailure(sent);
  return first !== undefined && codeOf(first) !== ABORTED ? first : thrown;
}

/** The first failure in the order sent that is not only the aborted transaction's, else the first failure. */
function firstFailure(sent: PromiseSettledResult<unknown>[]): unknown {
  const failures = sent.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  return failures.find((f) => codeOf(f) !== ABORTED) ?? failures[0];
}

/** Runs `transaction` on a connection of the pool, again after a deadlock or a serialization failure. */
async function attempts<T>(
  pool: pg.Pool,
  transaction: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    const stallMs = stallBounds.get(pool);
    const unwatch = stallMs === undefined ? () => undefined : watchStalls(client, stallMs);
    try {
      return await transaction(client);
    } catch (error) {
      if (isConnectionFault(error)) {
        // Gone, or stuck behind a query the client gave up on: a ROLLBACK would wait behind it. The server
        // rolls the transaction back when the connection closes.
        broken = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
      await client.query('ROLLBACK').catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      if (!RETRYABLE.has(codeOf(error)) || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    } finally {
      unwatch();
      // A connection that failed is destroyed, not handed to the next batch.
      client.release(broken ?? false);
    }
  }
}

/**
 * Takes the connection for stalled, and destroys it, once the server has answered nothing for `stallMs` while a
 * transaction runs on it: every statement ends with ReadyForQuery, and a server that is alive answers each within
 * its statement timeout. What node-postgres's read timeout is on a connection that sends one statement at a
 * time; a pending statement then fails as a connection fault ("Query read timeout"), as there.
 */
function watchStalls(client: pg.PoolClient, stallMs: number): () => void {
  let answered = Date.now();
  const heard = () => {
    answered = Date.now();
  };
  client.connection.on('readyForQuery', heard);
  const timer = setInterval(
    () => {
      if (Date.now() - answered < stallMs) return;
      clearInterval(timer);
      client.connection.stream.destroy(
        new Error(`Query read timeout: the database answered nothing for ${stallMs} ms`),
      );
    },
    Math.max(10, Math.floor(stallMs / 10)),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    client.connection.off('readyForQuery', heard);
  };
}
