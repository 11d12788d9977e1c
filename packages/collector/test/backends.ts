// The storage backends every conformance test runs against: SQLite on a temporary file, and PostgreSQL on a
// fresh database of the server scripts/with-postgres.sh started (TOOLSCOPE_TEST_PG). With CI=true a missing
// server fails the suite; elsewhere the PostgreSQL cases are reported as skipped with the reason.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type OpenOptions, openStorage, type Storage } from '../src/index.js';
import { isPostgresUrl } from '../src/storage/open.js';
import { withClient } from '../src/storage/postgres/pg-db.js';
import { PREFIX_VARIABLE } from './pg-databases-global.js';

export const PG_URL = process.env.TOOLSCOPE_TEST_PG;

if (!PG_URL && process.env.CI === 'true') {
  throw new Error(
    'TOOLSCOPE_TEST_PG is not set: CI must run the tests through scripts/with-postgres.sh',
  );
}

/** How long the test server has to accept an administrative connection. */
export const ADMIN_CONNECT_MS = 10_000;

/**
 * A new, empty database on the test server; its URL. Named with the test run's prefix, so the run drops it at its
 * end (pg-databases-global.ts); a bench, outside a test run, names it by its process.
 */
export async function freshPgDatabase(): Promise<string> {
  if (!PG_URL) throw new Error('no PostgreSQL server (TOOLSCOPE_TEST_PG)');
  const prefix = process.env[PREFIX_VARIABLE] ?? `toolscope_${process.pid}_`;
  const name = `${prefix}${Math.random().toString(36).slice(2, 10)}`;
  await withClient(PG_URL, ADMIN_CONNECT_MS, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database freshPgDatabase made (a bench's, which no test run's teardown drops). */
export async function dropPgDatabase(db: string): Promise<void> {
  if (!PG_URL) throw new Error('no PostgreSQL server (TOOLSCOPE_TEST_PG)');
  const name = new URL(db).pathname.slice(1);
  await withClient(PG_URL, ADMIN_CONNECT_MS, (admin) =>
    admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`),
  );
}

/** A place to keep a store: `db` opens it (again, after a restart); `drop` removes it. */
export type StoreLocation = { db: string; drop(): Promise<void> };

export type Backend = {
  name: 'sqlite' | 'postgres';
  available: boolean;
  location(): Promise<StoreLocation>;
};

export const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    available: true,
    location: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'toolscope-conf-'));
      return {
        db: join(dir, 'store.db'),
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    available: PG_URL !== undefined,
    location: async () => {
      const db = await freshPgDatabase();
      return { db, drop: () => dropPgDatabase(db) };
    },
  },
];

export function open(db: string, options: OpenOptions = {}): Promise<Storage> {
  return openStorage(db, options);
}

/** Runs SQL on a store behind the collector's back (to damage it in tests), on either backend. */
export async function execRaw(db: string, sql: string): Promise<void> {
  if (isPostgresUrl(db)) {
    const client = new pg.Client(db);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
    return;
  }
  const raw = new Database(db);
  try {
    raw.exec(sql);
  } finally {
    raw.close();
  }
}
