// Partial PostgreSQL faults on the server scripts/with-postgres.sh started: backends terminated by the server
// (replaced, the collector keeps answering), a lock held past the statement timeout (503, then 200), a server
// that stops answering (bounded by the client, then taken for down until it answers), every connection busy
// (reads refused at once past a bound, not queued without end), a retention step and a migration that meet a
// fault (rolled back whole, reported, run again), the database unreachable at start (`serve` starts, says
// not ready and connects once it can, or with --exit-if-db-unreachable exits with one clear line). The writer
// thread's own faults are in pg-writer-faults.test.ts.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startRetention } from '../src/ingest/retention.js';
import { PG_MIGRATIONS } from '../src/storage/postgres/migrations.js';
import { openPostgresStorage } from '../src/storage/postgres/pg-storage.js';
import { writeStagesSource } from '../src/write-stages.js';
import { freshPgDatabase, PG_URL } from './backends.js';
import { getJson, jsonBody, postJson, serveUntilExit, startServe } from './harness.js';
import {
  capture,
  collectorOn,
  dbName,
  hex,
  type Logged,
  sql,
  stopAll,
  stops,
  until,
} from './pg-fault-harness.js';
import { tcpGate } from './tcp-gate.js';

afterAll(stopAll);

describe.skipIf(!PG_URL)('PostgreSQL faults', () => {
  it('replaces backends the server terminates, and keeps every acknowledged batch', async () => {
    const db = await freshPgDatabase();
    const { c, lines } = await collectorOn(db);
    const acked: number[] = [];
    let seed = 1;
    let stop = false;
    const send = async () => {
      while (!stop) {
        const id = seed++;
        const res = await postJson(c.url, jsonBody(id, 5));
        await res.arrayBuffer();
        if (res.status === 200) acked.push(id);
        else expect(res.status).toBe(503);
      }
    };
    const senders = [send(), send(), send()];
    let terminated = 0;
    for (let round = 0; round < 5; round++) {
      const before = acked.length;
      await until(() => acked.length >= before + 3);
      const rows = await sql(
        db,
        `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
          WHERE datname = $1 AND application_name = 'toolscope-collector'`,
        [dbName(db)],
      );
      terminated += rows.length;
    }
    const before = acked.length;
    await until(() => acked.length >= before + 3);
    stop = true;
    await Promise.all(senders);
    expect(terminated).toBeGreaterThan(0);
    expect((await fetch(`${c.url}/readyz`)).status).toBe(200);
    for (const id of acked)
      expect((await fetch(`${c.url}/api/traces/${hex(id)}`)).status).toBe(200);
    // Each was one connection's fault: replaced, never taken for the database going away.
    expect(lines.filter((l) => l.msg.startsWith('database unreachable'))).toEqual([]);
    const replaced = lines.filter((l) => l.msg.startsWith('a database connection failed'));
    expect(replaced.length).toBeGreaterThan(0);
    // The server's 57P01 when the connection was idle; a write into the closed socket when it was busy; the
    // driver's refusal of a connection that failed between two statements of one transaction (a merge step's).
    for (const l of replaced)
      expect(l.cause?.code ?? l.cause?.message).toMatch(
        /^(57P01|EPIPE|ECONNRESET)$|Connection terminated|not queryable/,
      );
  });

  it('answers 503 when a lock is held past the statement timeout, and 200 once it is released', async () => {
    const db = await freshPgDatabase();
    const { c } = await collectorOn(db, { statementTimeoutMs: 300 });
    expect((await postJson(c.url, jsonBody(1, 3))).status).toBe(200);
    const holder = new pg.Client(db);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE traces IN ACCESS EXCLUSIVE MODE');
    const write = await postJson(c.url, jsonBody(2, 3));
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBeTruthy();
    const read = await getJson<{ error: { code: string } }>(`${c.url}/api/traces/${hex(1)}`);
    expect([read.status, read.body.error.code]).toEqual([503, 'STORAGE_UNAVAILABLE']);
    expect(read.headers.get('retry-after')).toBeTruthy();
    await holder.query('ROLLBACK');
    await holder.end();
    expect((await postJson(c.url, jsonBody(2, 3))).status).toBe(200);
    expect((await fetch(`${c.url}/api/traces/${hex(2)}`)).status).toBe(200);
    expect((await fetch(`${c.url}/readyz`)).status).toBe(200);
  });

  it('answers 503 while the server stops answering, takes it for down, and resumes when it answers again', async () => {
    const db = new URL(await freshPgDatabase());
    const gate = await tcpGate(Number(db.port));
    stops.push(() => gate.shut());
    await gate.open();
    db.port = String(gate.port);
    const { c, lines } = await collectorOn(db.toString(), {
      statementTimeoutMs: 300,
      connectTimeoutMs: 500,
    });
    expect((await postJson(c.url, jsonBody(1, 3))).status).toBe(200);
    gate.stall();
    // The server cannot time the statement out: the client does (Query read timeout), then finds that a new
    // connection is not answered either.
    const stalled = await postJson(c.url, jsonBody(2, 3));
    expect([stalled.status, stalled.headers.has('retry-after')]).toEqual([503, true]);
    await until(() => lines.some((l) => l.msg.startsWith('database unreachable')));
    expect((await postJson(c.url, jsonBody(2, 3))).status).toBe(503);
    expect((await fetch(`${c.url}/readyz`)).status).toBe(503);
    gate.resume();
    await until(async () => (await fetch(`${c.url}/readyz`)).status === 200);
    expect((await postJson(c.url, jsonBody(2, 3))).status).toBe(200);
    expect(lines.map((l) => l.msg.split(';')[0])).toEqual([
      'database unreachable',
      'database reachable again',
    ]);
  });

  it('refuses reads past a bound at once while every connection is busy, instead of queueing them', async () => {
    const db = await freshPgDatabase();
    // Two of the five connections read; the writer thread has two for writes and one to merge rollup rows.
    const { c } = await collectorOn(db, { poolSize: 5, statementTimeoutMs: 20_000 });
    expect((await postJson(c.url, jsonBody(1, 3))).status).toBe(200);
    const holder = new pg.Client(db);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE traces IN ACCESS EXCLUSIVE MODE');
    // Two reads hold the two connections (waiting on the lock), 32 wait for one (the bound's floor: a
    // dashboard page asks for a few dozen at once), the rest are refused.
    const statuses: number[] = [];
    const reads = Array.from({ length: 60 }, async () => {
      const res = await fetch(`${c.url}/api/traces/${hex(1)}`);
      await res.arrayBuffer();
      statuses.push(res.status);
    });
    await until(() => statuses.filter((s) => s === 503).length >= 20);
    expect(statuses.every((s) => s === 503)).toBe(true);
    await holder.query('ROLLBACK');
    await holder.end();
    await Promise.all(reads);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  });

  it('rolls a retention step that meets a fault back whole, reports it, and finishes it on the next run', async () => {
    const db = await freshPgDatabase();
    const { c } = await collectorOn(db, { statementTimeoutMs: 300 });
    const old = Date.now() - 10 * 86_400_000;
    expect(
      (
        await postJson(
          c.url,
          jsonBody(1, 4, () => ({}), old),
        )
      ).status,
    ).toBe(200);
    const holder = new pg.Client(db);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE span_blocks IN ACCESS EXCLUSIVE MODE');
    const failures: unknown[] = [];
    const retention = startRetention(c.storage, c.queue, 86_400_000, 3_600_000, (error) =>
      failures.push(error),
    );
    stops.push(async () => retention.stop());
    await until(() => failures.length > 0);
    expect(failures).toEqual([expect.objectContaining({ code: '57014' })]);
    await holder.query('ROLLBACK');
    await holder.end();
    // Nothing of the step stayed: the trace is whole.
    const kept = await getJson<{ spans: unknown[] }>(`${c.url}/api/traces/${hex(1)}`);
    expect([kept.status, kept.body.spans.length]).toEqual([200, 4]);
    expect(await retention.runOnce()).toBe(1);
    expect((await fetch(`${c.url}/api/traces/${hex(1)}`)).status).toBe(404);
  });

  it('rolls a migration that meets a fault back whole, retries it and finishes', async () => {
    const db = await freshPgDatabase();
    // A database at v8; the next step (v9: it drops the call-id slot index of tool_call_rows and makes the
    // block index) then waits for a lock on tool_call_rows, under the view. A fixed step, not the last one:
    // later steps (v10, v11) only add columns and tables, and the slot and block indexes tell v9 apart.
    const last = 8;
    await sql(db, PG_MIGRATIONS.slice(0, last).join(';\n'));
    await sql(db, 'CREATE TABLE toolscope_schema (version INTEGER NOT NULL)');
    await sql(db, 'INSERT INTO toolscope_schema VALUES ($1)', [last]);
    const holder = new pg.Client(db);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE tool_calls IN ACCESS SHARE MODE');
    const { log, lines } = capture();
    const opening = openPostgresStorage(db, {
      log,
      waitForDatabase: true,
      stages: writeStagesSource(),
    });
    const waiting = `SELECT pid FROM pg_stat_activity WHERE datname = $1
      AND application_name = 'toolscope-collector' AND wait_event_type = 'Lock'`;
    await until(async () => (await sql(db, waiting, [dbName(db)])).length > 0);
    await sql(db, `SELECT pg_terminate_backend(pid) FROM (${waiting}) AS w`, [dbName(db)]);
    const storage = await opening;
    stops.push(() => storage.close());
    expect(await storage.ready()).toMatchObject({ ok: false });
    // Nothing of the interrupted step stayed: the version and the tables are those before it.
    expect(await sql(db, 'SELECT version FROM toolscope_schema')).toEqual([{ version: last }]);
    expect(
      await sql(
        db,
        "SELECT to_regclass('tool_calls_by_call_slot')::text AS slot, to_regclass('tool_calls_by_call_block')::text AS block",
      ),
    ).toEqual([{ slot: 'tool_calls_by_call_slot', block: null }]);
    await holder.query('ROLLBACK');
    await holder.end();
    await until(async () => (await storage.ready()).ok);
    expect(await sql(db, 'SELECT version FROM toolscope_schema')).toEqual([
      { version: PG_MIGRATIONS.length },
    ]);
    expect(lines.map((l) => [l.level, l.msg.split(';')[0], l.cause?.code])).toEqual([
      ['error', 'cannot reach or migrate the database at start', '57P01'],
      ['info', 'database reachable', undefined],
    ]);
  });

  it('starts while the database is unreachable, says not ready, and connects (and merges) once it can', async () => {
    const real = await freshPgDatabase();
    const db = new URL(real);
    const gate = await tcpGate(Number(db.port));
    stops.push(() => gate.shut());
    db.port = String(gate.port);
    db.password = 'start-secret-77';
    const serve = await startServe(db.toString(), ['--log-level', 'info']);
    stops.push(async () => serve.child.kill('SIGKILL'));
    expect((await fetch(`${serve.url}/readyz`)).status).toBe(503);
    const early = await postJson(serve.url, jsonBody(1, 2));
    expect([early.status, early.headers.has('retry-after')]).toEqual([503, true]);
    expect((await fetch(`${serve.url}/api/tools?since=1h`)).status).toBe(503);
    // The collector's own metrics stay readable: an outage is when they are wanted.
    const metrics = await fetch(`${serve.url}/metrics`);
    expect([
      metrics.status,
      (await metrics.text()).includes('toolscope_write_batches_total'),
    ]).toEqual([200, true]);
    await gate.open();
    await until(async () => (await fetch(`${serve.url}/readyz`)).status === 200);
    expect((await postJson(serve.url, jsonBody(1, 2))).status).toBe(200);
    // Merging starts once the collector has migrated, and not before: no merge failed meanwhile.
    await sql(
      real,
      `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, merged)
       VALUES (3, 'late', '1', '', 'server', 1, 0, '{}', FALSE), (3, 'late', '1', '', 'server', 2, 0, '{}', FALSE)`,
    );
    await until(
      async () => (await sql(real, 'SELECT 1 FROM tool_minutes WHERE NOT merged')).length === 0,
    );
    expect(serve.output()).not.toContain('merging rollup rows failed');
    const logged = serve
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Logged)
      .filter((l) => l.msg.includes('database'));
    expect(logged.map((l) => [l.msg.split(';')[0], l.cause?.code])).toEqual([
      ['cannot reach or migrate the database at start', 'ECONNREFUSED'],
      ['database reachable', undefined],
    ]);
    expect(serve.output()).not.toContain('start-secret-77');
  });

  it('with --exit-if-db-unreachable, exits 1 with one line naming the database and the flag', async () => {
    const gate = await tcpGate(1);
    const db = `postgres://toolscope:exit-secret-88@127.0.0.1:${gate.port}/toolscope`;
    const ports = ['--port', '0', '--grpc-port', '0'];
    const run = await serveUntilExit(['--exit-if-db-unreachable', '--db', db, ...ports]);
    const { code, stdout: out, stderr: err } = run;
    expect(code).toBe(1);
    expect(out).not.toContain('listening');
    expect(err.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^toolscope serve: cannot start: cannot use the PostgreSQL database postgres:\/\/toolscope:\*\*\*@127\.0\.0\.1:\d+\/toolscope \(ECONNREFUSED: .*--exit-if-db-unreachable/,
      ),
    ]);
    expect(`${out}${err}`).not.toContain('exit-secret-88');
  });
});
