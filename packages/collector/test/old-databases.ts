// Databases as an earlier release left them, for the migration tests: the schema steps of that release applied
// by hand, rows written in that schema, then opened by today's code.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStorage, type Storage } from '../src/index.js';
import { PG_MIGRATIONS } from '../src/storage/postgres/migrations.js';
import { MIGRATIONS } from '../src/storage/sqlite/schema.js';
import { freshPgDatabase } from './backends.js';

/** A SQLite file at schema `version` holding `rows`, opened by today's code for `check`. */
export async function upgradedSqlite(
  version: number,
  rows: string[],
  check: (s: Storage) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `toolscope-v${version}-`));
  try {
    const path = join(dir, 'old.db');
    const db = new Database(path);
    for (const step of MIGRATIONS.slice(0, version)) {
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.pragma(`user_version = ${version}`);
    for (const sql of rows) db.exec(sql);
    db.close();
    const s = await openStorage(path);
    try {
      await check(s);
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh PostgreSQL database at schema `version` holding `rows`, opened by today's code for `check`. */
export async function upgradedPostgres(
  version: number,
  rows: string[],
  check: (s: Storage) => Promise<void>,
): Promise<void> {
  const url = await freshPgDatabase();
  const client = new pg.Client(url);
  await client.connect();
  try {
    for (const step of PG_MIGRATIONS.slice(0, version)) await client.query(step as string);
    await client.query('CREATE TABLE toolscope_schema (version INTEGER NOT NULL)');
    await client.query('INSERT INTO toolscope_schema VALUES ($1)', [version]);
    for (const sql of rows) await client.query(sql);
    // The sequence of traces must move past the rows inserted with an explicit seq.
    await client.query("SELECT setval('traces_seq_seq', 1)");
  } finally {
    await client.end();
  }
  const s = await openStorage(url);
  try {
    await check(s);
  } finally {
    await s.close();
  }
}
