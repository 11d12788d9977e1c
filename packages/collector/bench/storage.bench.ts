// `pnpm bench:storage [-- --db postgres://…] [--skip-queries]`: what a span costs on disk. The bench:ingest
// workload (agent traces of 8 spans, 6 of them tool calls with ~15 attributes, one call in ten failing with
// validation issues) goes end to end into a fresh store of each backend: SQLite always, PostgreSQL when a URL
// is given (--db, BENCH_DB or TOOLSCOPE_TEST_PG; a fresh database is created on that server and dropped after).
// Printed per backend: bytes per span on disk and table by table (SQLite: the file with its WAL and dbstat;
// PostgreSQL: pg_total_relation_size of each table), the ingest rate beside the plain-INSERT/COPY reference of
// the same run, then the lines of bench:query against the same backend. Prints numbers; asserts nothing.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { runIngest } from './e2e-ingest.js';
import { ingestLines } from './ingest-lines.js';
import { makeSpans, protobufBatches } from './spans.js';

const { values: args } = parseArgs({
  options: { db: { type: 'string' }, 'skip-queries': { type: 'boolean' } },
});
const TRACES = Number(process.env.BENCH_TRACES ?? 25_000); // 8 spans each
const BATCH = 512;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const pgServer = args.db ?? process.env.BENCH_DB ?? process.env.TOOLSCOPE_TEST_PG;

type Size = { total: number; tables: [string, number][] };

function sqliteSize(path: string): Size {
  const file = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  const db = new Database(path, { readonly: true });
  try {
    const tables = db
      .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all() as { name: string; bytes: number }[];
    return {
      total: file(path) + file(`${path}-wal`),
      tables: tables.map((t) => [t.name, t.bytes]),
    };
  } finally {
    db.close();
  }
}

async function postgresSize(url: string): Promise<Size> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 2 DESC`,
    );
    const tables = rows.map((r): [string, number] => [r.name, Number(r.bytes)]);
    return { total: tables.reduce((n, [, b]) => n + b, 0), tables };
  } finally {
    await client.end();
  }
}

/** A fresh database on the server `base` names, and how to drop it. */
async function freshDatabase(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `toolscope_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client(base);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const spans = makeSpans(TRACES, Date.now() % 1_000_000_000);
const batches = protobufBatches(spans, BATCH);
const spanCount = spans.length;
const toolCalls = spans.filter((s) => s.attributes['gen_ai.tool.name'] !== undefined).length;
console.log(
  `bench:storage  node ${process.version}  ${spanCount} spans (${toolCalls} tool calls) in ${batches.length} protobuf batches of ${BATCH}`,
);

const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`.padStart(11);
function printSize(size: Size): void {
  console.log(
    `  on disk                                      ${(size.total / 2 ** 20).toFixed(1).padStart(9)} MiB  ${(size.total / spanCount).toFixed(0)} B per span (${(size.total / toolCalls).toFixed(0)} B per tool call)`,
  );
  for (const [name, bytes] of size.tables.slice(0, 12))
    console.log(
      `    ${name.padEnd(40)} ${kib(bytes)}  ${(bytes / spanCount).toFixed(0).padStart(5)} B per span`,
    );
}

async function queries(db: string | undefined): Promise<void> {
  const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
  const script = fileURLToPath(new URL('./query.bench.ts', import.meta.url));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      tsx,
      ['--conditions=@toolscope/source', script, ...(db ? ['--db', db] : [])],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`bench:query exited ${code}`)),
    );
  });
}

/** Ingests the workload into `db`, measures the store before the reference writes, prints both. */
async function ingestInto(label: string, db: string, measure: () => Promise<Size>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolscope-storage-'));
  try {
    let size: Size | undefined;
    const r = await runIngest({
      db,
      collectors: 1,
      batches,
      batchSize: BATCH,
      concurrency: CONCURRENCY,
      scratch: dir,
      afterIngest: async () => {
        size = await measure();
      },
    });
    console.log(label);
    if (size) printSize(size);
    for (const line of ingestLines(r, CONCURRENCY)) console.log(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// SQLite: its own folder, so the store's file is measured alone.
{
  const dir = mkdtempSync(join(tmpdir(), 'toolscope-storage-db-'));
  const path = join(dir, 'storage.db');
  try {
    await ingestInto('SQLite', path, async () => sqliteSize(path));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!args['skip-queries']) await queries(undefined);
}

// PostgreSQL
if (pgServer) {
  const ingestDb = await freshDatabase(pgServer);
  try {
    await ingestInto('PostgreSQL', ingestDb.url, () => postgresSize(ingestDb.url));
  } finally {
    await ingestDb.drop();
  }
  if (!args['skip-queries']) {
    const queryDb = await freshDatabase(pgServer);
    try {
      await queries(queryDb.url);
    } finally {
      await queryDb.drop();
    }
  }
} else console.log('PostgreSQL: skipped (no --db, BENCH_DB or TOOLSCOPE_TEST_PG)');
