// The PostgreSQL backend (`--db postgres://…`): stateless collectors, as many as needed, share one database. Writes
// are one transaction per batch (pg-writer.ts), acknowledged after COMMIT, run by a thread of their own on half
// the connections (pg-writer-thread.ts), which in a serving collector also merges rollup rows, on one connection
// more; reads are the shared SQL queries (storage/sql) on the rest; retention deletes in small transactions, one
// collector at a time. Every fault of the database is a value for
// the caller (STORAGE_UNAVAILABLE, 503), never the end of the process: pg-health.ts tracks whether the database
// is there, and a collector may start before it is.

import { causeOf } from '../../ops/logger.js';
import type { WriteStagesSource } from '../batch-rows.js';
import type { Storage } from '../contract.js';
import { redactDbUrl } from '../open.js';
import { READ_SETTINGS_KEY, type ReadSettingsOptions, settingsOf } from '../read-settings.js';
import { sqlReaders } from '../sql/readers.js';
import { writerLimits, writerMemory } from '../threads/writer-memory.js';
import { migratePostgres, PG_MIGRATIONS } from './migrations.js';
import { createPool, type PoolBounds, pgReadDb, withClient } from './pg-db.js';
import { isConnectionFault, PgHealth, type PgLog, SILENT_LOG, unavailable } from './pg-health.js';
import { deleteBefore } from './pg-retention.js';
import { PgWriterThread } from './pg-writer-thread.js';

export type PostgresOptions = ReadSettingsOptions & {
  /** The stages a batch's writes run (batch-rows.ts). */
  stages: WriteStagesSource;
  /**
   * Most connections this process opens (default 10, at least 3): half write, one merges rollup rows, the rest
   * read.
   */
  poolSize?: number;
  /**
   * Run the merge step of the appended rollup rows (pg-rollup-merge.ts) in this process, once the schema is
   * migrated: a serving collector does; a `report` or a library reading the store leaves it to them (reads add
   * up a key's rows either way).
   */
  mergeRollups?: boolean;
  /** Period of that merge step, in ms (default 2 s). */
  rollupMergeMs?: number;
  /** The collector's memory limit, which the writer thread's heap and write size are sized from. */
  memoryLimitBytes?: number | undefined;
  /** Bound of one statement, lock waits included, in ms (default 10 s, an OTLP exporter's own timeout). */
  statementTimeoutMs?: number;
  /** Bound of opening a connection or waiting for a free one, in ms (default 3 s). */
  connectTimeoutMs?: number;
  /**
   * Start even when the database cannot be reached: reads and writes answer 503 and ready() says why until a
   * connection (and the migrations) succeed, tried with backoff. Without it, opening fails.
   */
  waitForDatabase?: boolean;
  /** Where outages and their end are logged, one line each (default: nowhere). */
  log?: PgLog;
  /** Told of every error of a connection (the pool replaces it). */
  onPoolError?: (error: Error) => void;
  /** Told of stored values a read could not use. */
  onDamage?: (what: string) => void;
};

const warnDamage = (what: string) => process.emitWarning(`toolscope: ${what}`);
const POOL_WAIT = /timeout exceeded when trying to connect/;
/** Reads that may wait for a connection at once, at least (pg-db.ts pgReadDb). */
const READS_WAITING = 32;

/** Spans the write queue may hold per MiB of a memory limit (Storage.pendingSpansPerMiB). */
const PG_PENDING_SPANS_PER_MIB = 80;

export async function openPostgresStorage(url: string, options: PostgresOptions): Promise<Storage> {
  const size = options.poolSize ?? 10;
  if (!(Number.isInteger(size) && size >= 3))
    throw new RangeError(
      `poolSize ${size}: at least 3 (one writes, one merges rollup rows, one reads)`,
    );
  const writers = Math.max(1, Math.floor(size / 2));
  const bounds: PoolBounds = {
    max: Math.max(1, size - writers - 1),
    statementTimeoutMs: options.statementTimeoutMs ?? 10_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 3_000,
  };
  // Until the first connection recalls what the store remembers (when asked to), the settings given.
  let settings = settingsOf(options, undefined);
  let migrated = false;
  // The first connection migrates; later ones (the checks while down) only prove the server answers, soon.
  const probe = () =>
    withClient(url, bounds.connectTimeoutMs, (c) => c.query('SELECT 1'), bounds.connectTimeoutMs);
  const connect = async () => {
    if (migrated) {
      await probe();
      return;
    }
    await withClient(url, bounds.connectTimeoutMs, async (client) => {
      await migratePostgres(client);
      if (options.recallReadSettings) {
        const stored = await client.query<{ value: string }>(
          'SELECT value FROM toolscope_settings WHERE key = $1',
          [READ_SETTINGS_KEY],
        );
        settings = settingsOf(options, stored.rows[0]?.value);
      }
      if (options.rememberReadSettings && options.readSettings !== undefined)
        await client.query(
          `INSERT INTO toolscope_settings (key, value) VALUES ($1, $2)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [READ_SETTINGS_KEY, options.readSettings],
        );
      migrated = true;
    });
    if (options.mergeRollups) writer.startMerging();
  };
  const health = new PgHealth({ probe: connect, log: options.log ?? SILENT_LOG });
  const fault = (error: Error) => {
    options.onPoolError?.(error);
    health.fault(error);
  };
  const pool = createPool(url, bounds, fault);
  // The writer thread's heap and write size under a memory limit, as SQLite's (threads/writer-memory.ts), with a
  // quarter of the limit for its old generation (50 MiB at 200): its live set after a full collection was
  // 16-18 MB under bench:ingest, and at 32 MiB it ran a mark-compact every 100 ms (decision 0075). Its
  // semi-spaces start at twice SQLite's (8 MiB at 200; the same under 50 MiB and from 800): its writes wait on
  // round trips while others allocate, and what a scavenge copies is what survives; five pairs made 0.3-10.7 %
  // more spans/s at 6-10 MiB more peak RSS, and a 30 s flood peaked at 161 MiB against 149 (decision 0081). A
  // write holds twice SQLite's spans (2,048 at 200 MiB): with writes filled first, eight pairs made 0.5-15.9 %
  // more spans/s than at 1,024 at the same peak RSS, and a 30 s flood acknowledged 39 % more, peaking at 158 MiB
  // (decision 0086; 4,096 was no faster, at 173-176 MiB). The thread starts with the first write, or once the schema
  // is migrated when this process merges.
  const memory = writerMemory(options.memoryLimitBytes, 1 / 4, 1 / 25, 10);
  const writer = new PgWriterThread(
    {
      url,
      // A connection for each concurrent write and one for the merge step (pg-writer-worker.ts).
      bounds: { ...bounds, max: writers + 1 },
      stages: options.stages,
      mergeEveryMs: options.rollupMergeMs ?? 2_000,
    },
    {
      fault,
      damage: options.onDamage ?? warnDamage,
      mergeFailed: (error) =>
        options.log?.error(
          { cause: causeOf(error) },
          'merging rollup rows failed; tried again every step, reads add up the rows meanwhile',
        ),
      mergeRecovered: () => options.log?.info({}, 'merging rollup rows works again'),
      mergeStopped: (version) =>
        options.log?.error(
          { schemaVersion: version, ownVersion: PG_MIGRATIONS.length },
          'merging rollup rows stopped: the database has another schema version than this collector; collectors of that version merge them',
        ),
    },
    writerLimits(memory),
  );
  try {
    await connect();
  } catch (error) {
    // Only an unreachable server is waited for; a refused migration (a newer schema, no rights) fails the start.
    if (!options.waitForDatabase || !isConnectionFault(error)) {
      health.close();
      await pool.end();
      throw error;
    }
    health.startDown(error);
  }
  /**
   * What a failed read or retention step becomes for the caller: a full read pool and a lost connection are both
   * 503. A write's wait for a connection is never for one another holds (pg-writer-worker.ts): it is a fault.
   */
  const failure = (error: unknown) =>
    error instanceof Error && POOL_WAIT.test(error.message) && pool.totalCount >= bounds.max
      ? unavailable('every database connection is busy; retry shortly', error)
      : health.translate(error);
  const writeFailure = (error: unknown) => health.translate(error);
  // Not an async function awaiting `run`: its frame would hold the arguments (a write's spans) until the
  // transaction ends, and the spans are not needed once the write's plan is made.
  const guarded =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>, translate = failure) =>
    (...args: A): Promise<R> => {
      let pending: Promise<R>;
      try {
        health.check();
      } catch (error) {
        return Promise.reject(error);
      }
      try {
        pending = run(...args);
      } catch (error) {
        return Promise.reject(translate(error));
      }
      return pending.catch((error: unknown) => {
        throw translate(error);
      });
    };
  const guard = { check: () => health.check(), translate: failure };
  // Reads past the pool wait, up to a bound: one dashboard page asks for a few dozen statements at once (the
  // overview's tools, flags and three time series, each several), which twice the pool refused in part.
  const waiting = Math.max(READS_WAITING, bounds.max * 4);
  const reader = sqlReaders(pgReadDb(pool, options.onDamage ?? warnDamage, guard, waiting));
  return {
    backend: 'postgres',
    location: redactDbUrl(url),
    // The writer thread's connections: reads have the others, so they always find one.
    concurrentWrites: writers,
    // Fuller transactions: the server's work per span fell by a fifth without a limit (decision 0086).
    fillsWritesFirst: true,
    takesSealed: true,
    ...(memory.writeSpans ? { writeSpans: memory.writeSpans } : {}),
    // Under 20 s floods at 200 MiB its resident set peaked at 168-180 MiB with 80 spans pending per MiB, and it
    // acknowledged 10-31 % more than with the default 48 (docs/decisions/0072-malloc-keeps-the-flood.md).
    pendingSpansPerMiB: PG_PENDING_SPANS_PER_MIB,
    // Packed by the process stage, on the collectors, which scale out; not by the one server's TOAST
    // (decision 0011).
    write: guarded((batch) => writer.write(batch), writeFailure),
    deleteBefore: guarded((cutoffNs: bigint, maxTraces: number) =>
      deleteBefore(pool, cutoffNs, maxTraces),
    ),
    ...reader,
    readSettings: () => settings,
    ready: async () => {
      const down = health.downReason;
      if (down !== undefined) return { ok: false, reason: down };
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
        const said = failure(error);
        return { ok: false, reason: said instanceof Error ? said.message : String(said) };
      }
    },
    sizeBytes: guarded(async () => {
      const r = await pool.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
      return Number(r.rows[0]?.n ?? 0);
    }),
    close: async () => {
      // The writer's pool ends after its writes in flight (the collector has waited for its queue).
      await writer
        .close()
        .catch((error: unknown) =>
          options.log?.warn({ cause: causeOf(error) }, 'the writer thread did not close cleanly'),
        );
      health.close();
      await pool.end();
    },
  };
}
