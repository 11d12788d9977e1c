// Opens the backend a `--db` value names: a `postgres://` or `postgresql://` URL is PostgreSQL, anything else
// a SQLite file (`:memory:` for a throwaway store). The write stages come from the composition root
// (src/pipeline.ts), which opens stores through here.

import type { WriteStagesSource } from './batch-rows.js';
import type { Storage } from './contract.js';
import type { PgLog } from './postgres/pg-health.js';
import type { ReadSettingsOptions } from './read-settings.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';

export type BackendOptions = ReadSettingsOptions & {
  /** The stages a batch's writes run (batch-rows.ts). */
  stages: WriteStagesSource;
  /** SQLite `synchronous` pragma (ignored by PostgreSQL, which commits durably). */
  synchronous?: 'NORMAL' | 'FULL';
  /** Most PostgreSQL connections this process opens (default 10; half of them write). */
  poolSize?: number;
  /** Told of errors of PostgreSQL connections (the pool replaces them). */
  onPoolError?: (error: Error) => void;
  /** PostgreSQL: start while the database is unreachable and connect with backoff (pg-storage.ts). */
  waitForDatabase?: boolean;
  /** PostgreSQL: bound of one statement in ms (default 10 s). */
  statementTimeoutMs?: number;
  /** PostgreSQL: where an outage and its end are logged. */
  log?: PgLog;
  /** Told of stored values a read could not use (left out of its answer). */
  onDamage?: (what: string) => void;
  /** The collector's memory limit, which the writer thread (and SQLite's page caches) are sized from. */
  memoryLimitBytes?: number | undefined;
  /** PostgreSQL: run the merge step of appended rollup rows in this process (a serving collector). */
  mergeRollups?: boolean;
  /** PostgreSQL: period of that merge step, in ms (default 2 s). */
  rollupMergeMs?: number;
};

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The database named without its password, for logs and banners. */
export function redactDbUrl(db: string): string {
  if (!isPostgresUrl(db)) return db;
  try {
    const url = new URL(db);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

export async function openBackend(db: string, options: BackendOptions): Promise<Storage> {
  if (isPostgresUrl(db)) {
    const { openPostgresStorage } = await import('./postgres/pg-storage.js');
    return openPostgresStorage(db, options);
  }
  return openSqliteStorage(db, {
    stages: options.stages,
    ...(options.synchronous ? { synchronous: options.synchronous } : {}),
    ...(options.readSettings !== undefined ? { readSettings: options.readSettings } : {}),
    ...(options.rememberReadSettings ? { rememberReadSettings: true } : {}),
    ...(options.recallReadSettings ? { recallReadSettings: true } : {}),
    ...(options.onDamage ? { onDamage: options.onDamage } : {}),
    ...(options.memoryLimitBytes ? { memoryLimitBytes: options.memoryLimitBytes } : {}),
  });
}
