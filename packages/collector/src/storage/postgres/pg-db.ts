// node-postgres plumbing shared by the PostgreSQL backend: the pool (every connection's errors handled, bounded
// waits and statements), dedicated connections, ReadDb over the pool (`?` placeholders turned into `$n` once
// per SQL text), and a transaction helper that retries a batch that lost a deadlock or serialization race to
// another collector and discards a connection that failed.
import pg from 'pg';
import type { ReadDb, Row, SqlValue } from '../sql/db.js';
import { inRows } from '../sql/in-rows.js';
import { type ArrayItem, pgArray } from './pg-array.js';
import { isConnectionFault, isTimeout, unavailable } from './pg-health.js';

export type PoolBounds = {
  /** Most connections of this process. */
  max: number;
  /** Server-side bound of one statement, lock waits included (ms). */
  statementTimeoutMs: number;
  /** Bound of opening a connection, and of waiting for a free one (ms). */
  connectTimeoutMs: number;
};

/** Connection settings of every connection: named, kept alive, with their own error listener. */
export function connectionConfig(url: string, connectTimeoutMs: number): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: 'toolscope-collector',
    connectionTimeoutMillis: connectTimeoutMs,
    // A peer that vanished without a reset (a cut network) is found by TCP keepalive, not after hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * The pool. `onFault` hears every error of every connection, idle or checked out: without a listener an
 * 'error' event of a checked-out client (its socket reset while a batch was being written) ends the process.
 */
export function createPool(
  url: string,
  bounds: PoolBounds,
  onFault: (error: Error) => void,
  pipeline = false,
): pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(url, bounds.connectTimeoutMs),
    // `pipeline`: each statement is written at once, not after the one before it is answered; the writer's
    // transactions send what they need no answer to without waiting (inPipelinedTransaction).
    pipeline,
    max: bounds.max,
    statement_timeout: bounds.statementTimeoutMs,
    // A server that stops answering (a stalled host) cannot enforce statement_timeout: the client does, a
    // little later (the server's own error, when it can send one, comes first), and the connection is then
    // discarded.
    query_timeout: bounds.statementTimeoutMs + Math.min(5_000, bounds.statementTimeoutMs),
    // Locks of a transaction whose collector froze are freed by the server.
    idle_in_transaction_session_timeout: Math.max(60_000, bounds.statementTimeoutMs * 3),
  });
  pool.on('error', onFault);
  pool.on('connect', (client) => client.on('error', onFault));
  return pool;
}

/**
 * Runs `use` on a connection of its own (migrations, probes), closed after, its errors handled; each query
 * bounded by `queryTimeoutMs` when given (a probe), or not at all (a migration may take long).
 */
export async function withClient<T>(
  url: string,
  connectTimeoutMs: number,
  use: (client: pg.Client) => Promise<T>,
  queryTimeoutMs?: number,
): Promise<T> {
  const client = new pg.Client({
    ...connectionConfig(url, connectTimeoutMs),
    ...(queryTimeoutMs ? { query_timeout: queryTimeoutMs } : {}),
  });
  // A reset while `use` runs fails its query; the event itself must not end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await use(client);
  } finally {
    // Ending a client whose socket already failed fails too; `use`'s own outcome (its value, or its error,
    // which the caller logs) is what matters, and nothing is left open either way.
    await client.end().catch(() => undefined);
  }
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

export type ReadGuard = {
  /** Throws when reads cannot be served now (the database is down). */
  check(): void;
  /** What a failed read becomes (a connection fault: STORAGE_UNAVAILABLE). */
  translate(error: unknown): unknown;
};

export function pgReadDb(
  pool: pg.Pool,
  damaged: (what: string) => void,
  guard: ReadGuard,
  maxWaiting: number,
): ReadDb {
  return {
    damaged,
    byteOrder: (column) => `${column} COLLATE "C"`,
    inRows: (column, subquery) => inRows('postgres', column, subquery),
    all: async (sql: string, params: readonly SqlValue[] = []) => {
      guard.check();
      // Reads beyond the pool queue up to a bound; past it they are refused now rather than piling up.
      if (pool.waitingCount >= maxWaiting)
        throw unavailable('every database connection is busy; retry shortly');
      try {
        const result = await pool.query(toDollars(sql), params.map(param));
        return result.rows as Row[];
      } catch (error) {
        if (isTimeout(error)) throw unavailable('a database statement timed out', error);
        throw guard.translate(error);
      }
    },
  };
}

/**
 * A statement of the write path whose text never changes, as a named prepared statement: the server parses and
 * plans it once per connection instead of once per batch. Parsing and planning the batch's unnamed statements
 * took about 7 % of the server's CPU under `pnpm bench:ingest` (perf, docs/benchmarks.md), most of it the tallies'
 * one statement of a dozen data-modifying WITHs. node-postgres remembers which names each connection has
 * prepared; `name` must be unique to `text`.
 */
export function prepared(name: string, text: string, values: readonly PgParam[]): pg.QueryConfig {
  return { name, text, values: arrayParams(values) };
}

/** A parameter of the write path: a value, bytes, or an array of values (an array literal, pgArray). */
export type PgParam = ArrayItem | Uint8Array | readonly ArrayItem[];

/**
 * Parameters with each array written as an array literal by pgArray, not by node-postgres: its arrayString made a
 * string per element and joined them, which was the PostgreSQL writer thread's largest single allocation under
 * `pnpm bench:ingest` (docs/decisions/0076-pg-writer-garbage.md). Other values pass as they are.
 */
export function arrayParams(values: readonly PgParam[]): (ArrayItem | Uint8Array)[] {
  return values.map((v) => (isArray(v) ? pgArray(v) : v));
}

const isArray = (v: PgParam): v is readonly ArrayItem[] => Array.isArray(v);

/** node-postgres sends a bigint through toString(); numbers and strings as they are. */
export function param(v: SqlValue): string | number | null {
  return typeof v === 'bigint' ? v.toString() : v;
}

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
      // A connection that failed is destroyed, not handed to the next batch.
      client.release(broken ?? false);
    }
  }
}
