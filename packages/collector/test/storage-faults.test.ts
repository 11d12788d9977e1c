// Storage faults: while another process holds the database locked, ingest never answers 200; it answers 503
// with Retry-After, and accepts again once the lock is released.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { jsonBody, postJson, startTestCollector } from './harness.js';

describe('storage faults', () => {
  it('answers 503 while the database is locked by someone else, and 200 once it is released', async () => {
    const c = await startTestCollector();
    expect((await postJson(c.url, jsonBody(1, 2))).status).toBe(200);
    const other = new Database(c.dbPath);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN EXCLUSIVE');
    const locked = await postJson(c.url, jsonBody(2, 2)); // waits out the writer's busy timeout (5 s)
    expect(locked.status).toBe(503);
    expect(locked.headers.get('retry-after')).toBe('1');
    other.exec('COMMIT');
    other.close();
    expect((await postJson(c.url, jsonBody(3, 2))).status).toBe(200);
    expect((await fetch(`${c.url}/api/traces/${'2'.padStart(32, '0')}`)).status).toBe(404);
    expect((await fetch(`${c.url}/api/traces/${'3'.padStart(32, '0')}`)).status).toBe(200);
    await c.stop();
  }, 30_000);
});
