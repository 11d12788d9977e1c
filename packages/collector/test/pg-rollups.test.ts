// The PostgreSQL rollup rows, merged by the collector on rows it has locked (pg-rollups.ts, decision 0057): two
// batches that add to one row at once both count, the second waiting for the first's commit; a new row is
// written once; a stored histogram that is not valid counts as empty, and the collector hears of it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deserialize } from '../src/aggregation/histogram.js';
import {
  accumulate,
  type Rollup,
  type RollupInput,
  withHours,
} from '../src/aggregation/rollups.js';
import { newTallies } from '../src/aggregation/tallies.js';
import { openStorage } from '../src/index.js';
import { lockRollups } from '../src/storage/postgres/pg-rollups.js';
import { tallyStatement } from '../src/storage/postgres/pg-tallies.js';
import { freshPgDatabase, PG_URL } from './backends.js';

const T = 1_764_590_000_000_000_000n;

/** The rollups of calls of one tool in one minute, with the given durations (ms) and result sizes. */
function rollupsOf(durations: number[], bytes: number): Rollup[] {
  const minutes = new Map<string, Rollup>();
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
    accumulate(minutes, call, 'server');
  }
  return withHours(minutes);
}

/** The batch's rollups written as the PostgreSQL writer writes them, in one transaction of its own. */
async function begin(client: pg.PoolClient, rollups: Rollup[], damaged: (w: string) => void) {
  await client.query('BEGIN');
  const updates = await lockRollups(client, rollups, damaged);
  return async () => {
    const statement = tallyStatement(newTallies(), updates);
    if (statement) await client.query(statement.sql, statement.args);
    await client.query('COMMIT');
    return updates;
  };
}

type Row = { calls: string; hist: string; bytes_hist: string; max_bytes: string };

describe.skipIf(!PG_URL)('PostgreSQL rollup rows', () => {
  let db: string;
  let pool: pg.Pool;
  const rows = async (table: string) =>
    (await pool.query<Row>(`SELECT calls, hist, bytes_hist, max_bytes FROM ${table}`)).rows;

  beforeAll(async () => {
    db = await freshPgDatabase();
    // Opening the store migrates it.
    await (await openStorage(db)).close();
    pool = new pg.Pool({ connectionString: db, max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('adds two concurrent batches to the rows they share, the second after the first commits', async () => {
    const damage: string[] = [];
    const first = await pool.connect();
    const second = await pool.connect();
    try {
      // A new row is written as the batch has it: nothing to update after the lock.
      const created = await begin(first, rollupsOf([1, 2], 100), (w) => damage.push(w));
      expect(await created()).toBeNull();
      const a = await begin(first, rollupsOf([2, 40], 5000), (w) => damage.push(w));
      let secondLocked = false;
      const b = begin(second, rollupsOf([40, 900], 100), (w) => damage.push(w)).then((end) => {
        secondLocked = true;
        return end;
      });
      // The second batch waits on the rows the first holds until the first commits.
      await new Promise((r) => setTimeout(r, 300));
      expect(secondLocked).toBe(false);
      expect(await a()).not.toBeNull();
      expect(await (await b)()).not.toBeNull();
    } finally {
      first.release();
      second.release();
    }
    for (const table of [
      'tool_minutes',
      'tool_hours',
      'tool_client_minutes',
      'tool_client_hours',
    ]) {
      const [row, ...more] = await rows(table);
      expect(more, table).toEqual([]);
      expect(Number(row?.calls), table).toBe(6);
      expect(Number(row?.max_bytes), table).toBe(5000);
      const expected = rollupsOf([1, 2, 2, 40, 40, 900], 100)[0] as Rollup;
      expect(deserialize(row?.hist ?? ''), table).toEqual(expected.hist);
      const sizes = deserialize(row?.bytes_hist ?? '');
      expect(
        [...sizes.values()].reduce((n, c) => n + c, 0),
        table,
      ).toBe(6);
    }
    expect(damage).toEqual([]);
  });

  it('counts a stored histogram that is not valid as empty, and says so', async () => {
    await pool.query(`UPDATE tool_minutes SET hist = 'not json'`);
    const damage: string[] = [];
    const client = await pool.connect();
    try {
      await (await begin(client, rollupsOf([7], 100), (w) => damage.push(w)))();
    } finally {
      client.release();
    }
    const [row] = await rows('tool_minutes');
    expect(Number(row?.calls)).toBe(7);
    expect(deserialize(row?.hist ?? '')).toEqual((rollupsOf([7], 100)[0] as Rollup).hist);
    expect(damage).toEqual(['a histogram is not valid JSON']);
  });
});
