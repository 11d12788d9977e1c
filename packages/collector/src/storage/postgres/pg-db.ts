// node-postgres plumbing shared by the PostgreSQL backend: the pool (every connection's errors handled, bounded
// waits and statements), dedicated connections, ReadDb over the pool (`?` placeholders turned into `$n` once
// per SQL text), and a transaction helper that retries a batch that lost a deadlock or serialization race to
// another collector and discards a connection that failed.
import pg from 'pg';
import type { ReadDb, Row, SqlValue } from '../sql/db.js';
import { inRows } from '../sql/in-rows.js';
import { type ArrayItem, pgArray } from './pg-array.js';
import { isTimeout, unavailable } from './pg-health.js';

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
    // discarded. node-postgres's read timeout runs from when a statement is sent: on a pipelined connection,
    // statements queued behind others' lock waits would add them up, so there the bound is kept by watching
    // for answers instead (pg-transaction.ts).
    ...(pipeline ? {} : { query_timeout: stallBound(bounds) }),
    // Locks of a transaction whose collector froze are freed by the server.
    idle_in_transaction_session_timeout: Math.max(60_000, bounds.statementTimeoutMs * 3),
  });
  pool.on('error', onFault);
  pool.on('connect', (client) => client.on('error', onFault));
  if (pipeline) stallBounds.set(pool, stallBound(bounds));
  return pool;
}

/** How long a connection may go unanswered before the client takes the server for stalled. */
const stallBound = (bounds: PoolBounds) =>
  bounds.statementTimeoutMs + Math.min(5_000, bounds.statementTimeoutMs);

/** The stall bound of each pipelined pool, which its transactions watch (pg-transaction.ts). */
export const stallBounds = new WeakMap<pg.Pool, number>();

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
