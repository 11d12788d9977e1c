// Faults of the PostgreSQL writer thread (pg-writer-thread.ts) on the server scripts/with-postgres.sh started: a
// thread that dies in the middle of a transaction (its batch 503, rolled back, the death logged once with its
// cause; the next batch on a new thread), and a rollup merge step that fails (said once, rows left for reads to
// add up and batches stored meanwhile, merged once it works again).
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../src/index.js';
import { freshPgDatabase, PG_URL } from './backends.js';
import { EXIT_TOOL } from './exiting-stages.js';
import { getJson, jsonBody, postJson } from './harness.js';
import { collectorOn, hex, sql, stopAll, stops, until } from './pg-fault-harness.js';

afterAll(stopAll);

const readFile = () => ({
  attributes: [
    { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
    { key: 'gen_ai.tool.name', value: { stringValue: 'read_file' } },
  ],
});

/** A trigger that refuses every DELETE of tool_minutes' rows: the merge step's, as a fault of its own. */
const FAILING_DELETES = `
  CREATE FUNCTION no_deletes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'no deletes in this test'; END $$;
  CREATE TRIGGER no_deletes BEFORE DELETE ON tool_minutes FOR EACH STATEMENT EXECUTE FUNCTION no_deletes();`;

describe.skipIf(!PG_URL)('PostgreSQL writer thread faults', () => {
  it('fails the write in flight with 503 when the writer thread dies in its transaction, and starts a new one that merges without traffic', async () => {
    const db = await freshPgDatabase();
    const stages = {
      module: new URL('./exiting-stages.ts', import.meta.url).href,
      options: { thresholds: {} },
    };
    const { c } = await collectorOn(db, { stages, rollupMergeMs: 50 });
    const warnings: Error[] = [];
    const heard = (warning: Error) => warnings.push(warning);
    process.on('warning', heard);
    stops.push(async () => process.off('warning', heard));
    const call = (tool: string) => () => ({
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: tool } },
      ],
    });
    expect((await postJson(c.url, jsonBody(1, 3, call('read_file')))).status).toBe(200);
    const died = await postJson(c.url, jsonBody(2, 3, call(EXIT_TOOL)));
    expect([died.status, died.headers.has('retry-after')]).toEqual([503, true]);
    // With nothing written since, the thread starts again (after a backoff) and merges what is appended.
    await sql(
      db,
      `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, merged)
       VALUES (3, 'after', '1', '', 'server', 1, 0, '{}', FALSE)`,
    );
    await until(
      async () => (await sql(db, 'SELECT 1 FROM tool_minutes WHERE NOT merged')).length === 0,
    );
    expect((await postJson(c.url, jsonBody(3, 3, call('read_file')))).status).toBe(200);
    // The death is logged once, with its cause (as a process warning, which the collector's log takes).
    expect(warnings.map((w) => w.message)).toEqual([
      'toolscope: a storage thread stopped: storage thread exited with code 7',
    ]);
    // The dead thread's transaction was rolled back whole; the acknowledged batches are stored.
    const stored = await sql(db, 'SELECT trace_id FROM traces ORDER BY trace_id');
    expect(stored.map((r) => r.trace_id)).toEqual([hex(1), hex(3)]);
    expect(Number((await sql(db, 'SELECT count(*) AS n FROM tool_call_rows'))[0]?.n)).toBe(6);
  });

  it('says once that merging rollup rows fails, stores batches and answers from their rows meanwhile, and merges them once it works', async () => {
    const db = await freshPgDatabase();
    const { c, lines } = await collectorOn(db, { rollupMergeMs: 50 });
    // Every batch in one minute, whenever the test runs: one key of tool_minutes.
    const at = Math.floor(Date.now() / 60_000) * 60_000 - 120_000;
    const post = async (seed: number) =>
      (await postJson(c.url, jsonBody(seed, 3, readFile, at))).status;
    const rows = async () =>
      Number((await sql(db, 'SELECT count(*) AS n FROM tool_minutes'))[0]?.n);
    // Merged on its own, on the writer thread.
    expect(await post(1)).toBe(200);
    await until(
      async () => (await sql(db, 'SELECT 1 FROM tool_minutes WHERE merged')).length === 1,
    );
    // The merge step's DELETE fails, every step, until the trigger goes. Batches only append: all stored.
    await sql(db, FAILING_DELETES);
    expect(await post(2)).toBe(200);
    await until(() => lines.some((l) => l.msg.startsWith('merging rollup rows failed')));
    expect(await post(3)).toBe(200);
    expect((await getJson(`${c.url}/api/tools`)).body).toMatchObject({
      tools: [{ name: 'read_file', calls: 9 }],
    });
    expect(await rows()).toBe(3);
    await sql(db, 'DROP TRIGGER no_deletes ON tool_minutes');
    await until(async () => (await rows()) === 1);
    await until(() => lines.some((l) => l.msg === 'merging rollup rows works again'));
    const failed = lines.filter((l) => l.msg.startsWith('merging rollup rows failed'));
    expect(failed.map((l) => [l.cause?.code, l.cause?.message])).toEqual([
      ['P0001', 'no deletes in this test'],
    ]);
  });

  it('writes while the merge step holds its connection, past the wait for a connection', async () => {
    const db = await freshPgDatabase();
    // Three connections: one writes, one merges, one reads. A write that waited for the merge's would time out.
    const { c } = await collectorOn(db, {
      poolSize: 3,
      connectTimeoutMs: 500,
      statementTimeoutMs: 20_000,
      rollupMergeMs: 50,
    });
    const at = Math.floor(Date.now() / 60_000) * 60_000 - 120_000;
    expect((await postJson(c.url, jsonBody(1, 3, readFile, at))).status).toBe(200);
    await until(
      async () => (await sql(db, 'SELECT 1 FROM tool_minutes WHERE merged')).length === 1,
    );
    // The merged row locked elsewhere: the next merge step waits on it in its DELETE, holding its connection.
    const holder = new pg.Client(db);
    await holder.connect();
    stops.push(() => holder.end());
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tool_minutes WHERE merged FOR UPDATE');
    expect((await postJson(c.url, jsonBody(2, 3, readFile, at))).status).toBe(200);
    await until(
      async () =>
        (
          await sql(
            db,
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
               AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM tool_minutes%'`,
          )
        ).length === 1,
    );
    for (let seed = 3; seed < 6; seed++)
      expect((await postJson(c.url, jsonBody(seed, 3, readFile, at))).status).toBe(200);
    await holder.query('ROLLBACK');
    await until(
      async () => Number((await sql(db, 'SELECT count(*) AS n FROM tool_minutes'))[0]?.n) === 1,
    );
  });

  it('merges a backlog of thousands of rows per key within the writer thread heap at a 200 MiB limit', async () => {
    const db = await freshPgDatabase();
    // What a merge that could not run for a while leaves: 50 keys of 2,000 rows each, with histograms of 40
    // buckets. All of a step's rows at once would be far past the thread's 32 MiB of old generation.
    const hist = `{${Array.from({ length: 40 }, (_, i) => `"${i * 7}":3`).join(',')}}`;
    const warnings: Error[] = [];
    const heard = (warning: Error) => warnings.push(warning);
    process.on('warning', heard);
    stops.push(async () => process.off('warning', heard));
    // Opening a store migrates it; a store opened outside a serving collector merges nothing.
    await (await openStorage(db)).close();
    await sql(
      db,
      `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, bytes_hist, tokens_hist,
         merged)
       SELECT 5, 'tool_' || k, '1', '', 'server', 1, 0, $1, $1, $1, FALSE
       FROM generate_series(1, 50) AS k, generate_series(1, 2000) AS n`,
      [hist],
    );
    const { lines } = await collectorOn(db, { memoryLimitBytes: 200 * 2 ** 20, rollupMergeMs: 50 });
    await until(
      async () =>
        (await sql(db, 'SELECT 1 FROM tool_minutes WHERE NOT merged LIMIT 1')).length === 0,
    );
    const merged = await sql(db, 'SELECT sum(calls) AS calls, count(*) AS n FROM tool_minutes');
    expect([Number(merged[0]?.calls), Number(merged[0]?.n)]).toEqual([100_000, 50]);
    expect(warnings).toEqual([]);
    expect(lines).toEqual([]);
  });
});
