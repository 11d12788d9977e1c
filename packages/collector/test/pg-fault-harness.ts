// What the PostgreSQL fault tests share (pg-faults.test.ts, pg-writer-faults.test.ts): collectors on storage of
// their own whose log lines are captured, one-off SQL, waits that follow progress, and what they leave to stop.
import pg from 'pg';
import { type Collector, startCollector } from '../src/index.js';
import type { PgLog } from '../src/storage/postgres/pg-health.js';
import { openPostgresStorage, type PostgresOptions } from '../src/storage/postgres/pg-storage.js';
import { writeStagesSource } from '../src/write-stages.js';

export type Logged = { level: string; msg: string; cause?: { code?: string; message: string } };

/** What a test leaves running, stopped in reverse by `stopAll` (each file's afterAll). */
export const stops: (() => Promise<unknown>)[] = [];
export async function stopAll(): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  stops.length = 0;
}

export function capture(): { log: PgLog; lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: string) => (fields: object, msg: string) =>
    lines.push({ level, msg, ...fields });
  return { log: { error: at('error'), warn: at('warn'), info: at('info') }, lines };
}

/** An in-process collector on its own storage, whose outage lines are captured. */
export async function collectorOn(db: string, options: Partial<PostgresOptions> = {}) {
  const { log, lines } = capture();
  const storage = await openPostgresStorage(db, {
    log,
    waitForDatabase: true,
    mergeRollups: true,
    stages: writeStagesSource(),
    ...options,
  });
  const c: Collector = await startCollector({ db, storage, port: 0 });
  stops.push(() => c.close().then(() => storage.close()));
  return { c, lines };
}

export async function sql(db: string, text: string, params: unknown[] = []) {
  const client = new pg.Client(db);
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

export const until = async (done: () => Promise<boolean> | boolean) => {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
};
export const hex = (n: number) => n.toString(16).padStart(32, '0');
export const dbName = (db: string) => new URL(db).pathname.slice(1);
