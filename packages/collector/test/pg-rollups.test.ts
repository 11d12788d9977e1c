// The PostgreSQL rollup rows, appended by each batch and merged later (pg-rollups.ts, pg-rollup-merge.ts,
// decision 0065): two batches that add to one key at once both count and neither waits for the other; the merge
// step folds a key's rows into one with the counts added, the histograms merged and the maxima kept, and reads
// answer the same before and after it; a stored histogram that is not valid counts as empty, and the collector
// hears of it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deserialize } from '../src/aggregation/histogram.js';
import {
  MinuteRollups,
  type Rollup,
  type RollupInput,
  withHours,
} from '../src/aggregation/rollups.js';
import { newTallies } from '../src/aggregation/tallies.js';
import { openStorage } from '../src/index.js';
import { deleteBefore } from '../src/storage/postgres/pg-retention.js';
import { MERGE_LOCK, mergeRollups } from '../src/storage/postgres/pg-rollup-merge.js';
import { tallyStatement } from '../src/storage/postgres/pg-tallies.js';
import { freshPgDatabase, PG_URL } from './backends.js';
import { callSpan } from './conformance/spans.js';
import { readTools } from './read-view.js';
import { writeSpans } from './write-spans.js';

const T = 1_764_590_000_000_000_000n;

/** The rollups of calls of one tool in one minute, with the given durations (ms) and result sizes. */
function rollupsOf(durations: number[], bytes: number): Rollup[] {
  const minutes = new MinuteRollups();
  for (const ms of durations) {
    const call: RollupInput = {
      tool: 'get',
      version: '1',
      code: null,
      errorType: null,
      isError: false,
      durationMs: ms,
      startNs: T,
      resultBytes: bytes,
      resultTokens: Math.floor(bytes / 4),
      clientName: 'cursor',
      clientVersion: '1.2.3',
    };
    minutes.add(call, 'server');
  }
  return withHours(minutes);
}

/** Appends a batch's rollup rows as the PostgreSQL writer does, in a transaction left open. */
async function append(client: pg.PoolClient, rollups: Rollup[]) {
  await client.query('BEGIN');
  const statement = tallyStatement(newTallies(), rollups);
  if (!statement) throw new Error('a batch with rollups has a statement');
  await client.query(statement.sql, statement.args);
}

const TABLES = ['tool_minutes', 'tool_hours', 'tool_client_minutes', 'tool_client_hours'];

type Row = { calls: string; hist: string; bytes_hist: string; max_bytes: string; merged: boolean };

describe.skipIf(!PG_URL)('PostgreSQL rollup rows', () => {
  let db: string;
  let pool: pg.Pool;
  const rows = async (table: string) =>
    (await pool.query<Row>(`SELECT calls, hist, bytes_hist, max_bytes, merged FROM ${table}`)).rows;

  beforeAll(async () => {
    db = await freshPgDatabase();
    // Opening the store migrates it.
    await (await openStorage(db)).close();
    pool = new pg.Pool({ connectionString: db, max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('appends concurrent batches without either waiting, and merges the rows of a key into one', async () => {
    const first = await pool.connect();
    const second = await pool.connect();
    try {
      await append(first, rollupsOf([1, 2], 100));
      await first.query('COMMIT');
      // Both open at once, the second's insert done while the first holds its rows: nothing is locked.
      await append(first, rollupsOf([2, 40], 5000));
      await append(second, rollupsOf([40, 900], 100));
      await second.query('COMMIT');
      await first.query('COMMIT');
    } finally {
      first.release();
      second.release();
    }
    for (const table of TABLES) expect((await rows(table)).length, table).toBe(3);
    const damage: string[] = [];
    expect(await mergeRollups(pool, (w) => damage.push(w))).toEqual({ removed: 12, more: false });
    expect(await mergeRollups(pool, (w) => damage.push(w))).toEqual({ removed: 0, more: false });
    const expected = rollupsOf([1, 2, 2, 40, 40, 900], 100)[0] as Rollup;
    for (const table of TABLES) {
      const [row, ...more] = await rows(table);
      expect(more, table).toEqual([]);
      expect(row?.merged, table).toBe(true);
      expect(Number(row?.calls), table).toBe(6);
      expect(Number(row?.max_bytes), table).toBe(5000);
      expect(deserialize(row?.hist ?? ''), table).toEqual(expected.hist);
      const sizes = deserialize(row?.bytes_hist ?? '');
      expect(
        [...sizes.values()].reduce((n, c) => n + c, 0),
        table,
      ).toBe(6);
    }
    expect(damage).toEqual([]);
  });

  it('counts a stored histogram that is not valid as empty when merging, and says so', async () => {
    await pool.query(`UPDATE tool_minutes SET hist = 'not json'`);
    const client = await pool.connect();
    try {
      await append(client, rollupsOf([7], 100));
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const damage: string[] = [];
    expect((await mergeRollups(pool, (w) => damage.push(w))).removed).toBe(8);
    const [row] = await rows('tool_minutes');
    expect(Number(row?.calls)).toBe(7);
    expect(deserialize(row?.hist ?? '')).toEqual((rollupsOf([7], 100)[0] as Rollup).hist);
    expect(damage).toEqual(['tool_minutes: a histogram is not valid JSON']);
  });

  it('merges a key of more rows than a step takes over several steps, its merged row always read', async () => {
    // 2,500 rows of one key (more than a page of the cursor, and than a step) and one row each of two more.
    await pool.query(
      `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, max_bytes, merged)
       SELECT 7, t, '1', '', 'server', 1, 0, '{"5":1}', g, FALSE
       FROM generate_series(1, 2500) AS g, (VALUES ('paged')) AS v(t)
       UNION ALL SELECT 7, t, '1', '', 'server', 2, 1, '{"9":2}', 3, FALSE FROM (VALUES ('b'), ('c')) AS v(t)`,
    );
    const mergedRows = async () =>
      (
        await pool.query<{ tool: string; n: string }>(
          `SELECT tool, count(*) AS n FROM tool_minutes WHERE minute = 7 AND merged GROUP BY tool`,
        )
      ).rows.filter((r) => Number(r.n) > 1);
    // Steps of 1,000 rows: each key keeps one merged row after every step, the long key's read first again.
    const steps = [];
    for (let more = true; more; ) {
      const step = await mergeRollups(pool, () => undefined, { rows: 1000 });
      steps.push(step);
      more = step.more;
      expect(await mergedRows()).toEqual([]);
    }
    expect(steps.length).toBeGreaterThanOrEqual(3);
    // Two keys a step at most: the third waits for a step of its own.
    await pool.query(
      `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, merged)
       SELECT 7, t, '1', '', 'server', 1, 0, '{}', FALSE FROM (VALUES ('b'), ('c'), ('paged')) AS v(t)`,
    );
    expect((await mergeRollups(pool, () => undefined, { keys: 2 })).more).toBe(true);
    expect((await mergeRollups(pool, () => undefined, { keys: 2 })).more).toBe(false);
    const merged = await pool.query<{
      tool: string;
      calls: string;
      errors: string;
      hist: string;
      max_bytes: string;
    }>(
      `SELECT tool, calls, errors, hist, max_bytes FROM tool_minutes WHERE minute = 7 AND merged ORDER BY tool`,
    );
    expect(
      merged.rows.map((r) => [
        r.tool,
        Number(r.calls),
        Number(r.errors),
        r.hist,
        Number(r.max_bytes),
      ]),
    ).toEqual([
      ['b', 3, 1, '{"9":2}', 3],
      ['c', 3, 1, '{"9":2}', 3],
      ['paged', 2501, 0, '{"5":2500}', 2500],
    ]);
    expect(
      (await pool.query('SELECT 1 FROM tool_minutes WHERE minute = 7 AND NOT merged')).rowCount,
    ).toBe(0);
  });

  it('leaves a row committed between its reads and its delete for the next step, neither lost nor doubled', async () => {
    const insert = (calls: number) =>
      pool.query(
        `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, merged)
         VALUES (8, 'late', '1', '', 'server', $1, 0, '{}', FALSE)`,
        [calls],
      );
    await insert(1);
    await insert(2);
    // Committed after the step read the key's rows and before its DELETE: the DELETE takes the rows it read,
    // by where they are, and leaves this one to the next step.
    const step = await mergeRollups(pool, () => undefined, {
      afterRead: async (table) => {
        if (table === 'tool_minutes') await insert(4);
      },
    });
    expect(step.removed).toBe(2);
    const left = await pool.query<{ calls: string; merged: boolean }>(
      'SELECT calls, merged FROM tool_minutes WHERE minute = 8 ORDER BY calls',
    );
    expect(left.rows.map((r) => [Number(r.calls), r.merged])).toEqual([
      [3, true],
      [4, false],
    ]);
  });

  it('deletes old rollup rows after a merge running at the time, never before it', async () => {
    // A merge holds its lock and has inserted a merged row below the cutoff, not yet committed.
    const merge = await pool.connect();
    try {
      await merge.query('BEGIN');
      await merge.query('SELECT pg_advisory_xact_lock($1)', [MERGE_LOCK.toString()]);
      await merge.query(
        `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist, merged)
         VALUES (9, 'old', '1', '', 'server', 5, 0, '{}', TRUE)`,
      );
      let ended = false;
      const retention = deleteBefore(pool, 60n * 1_000_000_000n * 10n, 10).finally(() => {
        ended = true;
      });
      // Retention waits for the merge's lock (without it, it would not see the row, and leave it for good).
      while (!ended) {
        const waiting = await pool.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND datname = current_database()`,
        );
        if (waiting.rowCount) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(ended).toBe(false);
      await merge.query('COMMIT');
      await retention;
    } finally {
      merge.release();
    }
    expect((await pool.query(`SELECT 1 FROM tool_minutes WHERE minute = 9`)).rowCount).toBe(0);
  });

  it('answers reads the same from the appended rows of a key as from their merge', async () => {
    const store = await freshPgDatabase();
    // A store opened outside a serving collector merges nothing: the rows stay as the batches appended them.
    const s = await openStorage(store);
    try {
      const MINUTE_MS = 60_000;
      for (let batch = 0; batch < 3; batch++)
        await writeSpans(
          s,
          Array.from({ length: 4 }, (_, i) =>
            callSpan({
              trace: batch * 10 + i + 1,
              span: 1,
              tool: 'get_order',
              agoMs: 90 * MINUTE_MS,
            }),
          ),
        );
      const since = BigInt(Date.now() - 3 * 60 * MINUTE_MS) * 1_000_000n;
      const until = BigInt(Date.now()) * 1_000_000n;
      const before = await readTools(s, since, until, 'get_order');
      const own = new pg.Pool({ connectionString: store, max: 2 });
      try {
        const count = async () =>
          Number((await own.query('SELECT count(*) AS n FROM tool_minutes')).rows[0]?.n);
        expect(await count()).toBe(3);
        expect((await mergeRollups(own, () => undefined)).removed).toBeGreaterThan(0);
        expect(await count()).toBe(1);
      } finally {
        await own.end();
      }
      const after = await readTools(s, since, until, 'get_order');
      expect(after).toEqual(before);
      expect(before[0]?.calls).toBe(12);
    } finally {
      await s.close();
    }
  });
});
