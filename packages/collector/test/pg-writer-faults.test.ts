// Faults of the PostgreSQL writer thread (pg-writer-thread.ts) on the server scripts/with-postgres.sh started: a
// thread that dies in the middle of a transaction (its batch 503, rolled back, the death logged once with its
// cause; the next batch on a new thread), and a rollup merge step that fails (said once, rows left for reads to
// add up and batches stored meanwhile, merged once it works again).
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPgDatabase, PG_URL } from './backends.js';
import { EXIT_TOOL } from './exiting-stages.js';
import { getJson, jsonBody, postJson } from './harness.js';
import { collectorOn, hex, sql, stopAll, stops, until } from './pg-fault-harness.js';

afterAll(stopAll);

describe.skipIf(!PG_URL)('PostgreSQL writer thread faults', () => {
  it('fails the write in flight with 503 when the writer thread dies in its transaction, and starts a new one', async () => {
    const db = await freshPgDatabase();
    const stages = {
      module: new URL('./exiting-stages.ts', import.meta.url).href,
      options: { thresholds: {} },
    };
    const { c } = await collectorOn(db, { stages });
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

  it('says once that merging rollup rows fails, leaves them to reads meanwhile, and merges them once it works', async () => {
    const db = await freshPgDatabase();
    const { c, lines } = await collectorOn(db, { statementTimeoutMs: 300, rollupMergeMs: 50 });
    const call = () => ({
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'read_file' } },
      ],
    });
    const rows = async () =>
      Number((await sql(db, 'SELECT count(*) AS n FROM tool_minutes'))[0]?.n);
    // Merged on its own, on the writer thread.
    expect((await postJson(c.url, jsonBody(1, 3, call))).status).toBe(200);
    await until(
      async () => (await sql(db, 'SELECT 1 FROM tool_minutes WHERE merged')).length === 1,
    );
    // The merge step cannot delete the merged row while another holds it: its statement times out, every
    // step. Batches only append, so they are stored meanwhile.
    const holder = new pg.Client(db);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tool_minutes WHERE merged FOR UPDATE');
    expect((await postJson(c.url, jsonBody(2, 3, call))).status).toBe(200);
    await until(() => lines.some((l) => l.msg.startsWith('merging rollup rows failed')));
    await holder.query('ROLLBACK');
    await holder.end();
    expect((await postJson(c.url, jsonBody(3, 3, call))).status).toBe(200);
    expect((await getJson(`${c.url}/api/tools`)).body).toMatchObject({
      tools: [{ name: 'read_file', calls: 9 }],
    });
    await until(async () => (await rows()) === 1);
    await until(() => lines.some((l) => l.msg === 'merging rollup rows works again'));
    expect(lines.filter((l) => l.msg.startsWith('merging rollup rows failed'))).toHaveLength(1);
    expect(lines.find((l) => l.msg.startsWith('merging rollup rows failed'))?.cause?.code).toBe(
      '57014',
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
    // Opening a store migrates it; this collector's merge is too far off to run during the test.
    await collectorOn(db, { rollupMergeMs: 3_600_000 });
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
