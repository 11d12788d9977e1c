// The batch's tallies as one statement: every write's placeholders renumbered into one run from $1 to the last
// argument, each table written once, and no statement for a batch without tallies. The statement's effect on
// a real server is what the conformance and scale-out suites check, and pg-rollups.test.ts for the rollups.
import { describe, expect, it } from 'vitest';
import { MinuteRollups, withHours } from '../../aggregation/rollups.js';
import { newTallies } from '../../aggregation/tallies.js';
import { rollupArgs } from './pg-rollups.js';
import { tallyStatement } from './pg-tallies.js';

const T = 1_764_590_000_000_000_000n;
const PATH = { tool: 'get', code: 'INVALID_INPUT', path: 'q', minute: 1n, count: 1, traceId: 't' };

/** One call's rollups: a row in each of the four tables. */
function oneCallRollups() {
  const minutes = new MinuteRollups();
  minutes.add(
    {
      tool: 'get',
      version: '1',
      code: null,
      errorType: null,
      isError: false,
      durationMs: 3,
      startNs: T,
      resultBytes: 10,
      resultTokens: 2,
      clientName: 'cursor',
      clientVersion: '1.2.3',
    },
    'server',
  );
  return withHours(minutes);
}

describe('tallyStatement', () => {
  it('numbers the placeholders of its writes $1 to the last argument, once each table', () => {
    const tallies = newTallies();
    tallies.schemas.set('s', {
      tool: 'get',
      version: '1',
      hash: 'h',
      first: T,
      last: T,
      calls: 1,
      traceId: 't',
    });
    tallies.shapes.set('s', {
      tool: 'get',
      shape: 'q:string',
      first: T,
      last: T,
      calls: 1,
      invalid: 0,
    });
    tallies.sources.set('s', {
      tool: 'get',
      source: 'toolscope',
      side: 'server',
      first: T,
      last: T,
    });
    tallies.paths.set('p', PATH);
    const rollups = oneCallRollups();
    expect(rollups.map((r) => r.table).sort()).toEqual([
      'tool_client_hours',
      'tool_client_minutes',
      'tool_hours',
      'tool_minutes',
    ]);
    const statement = tallyStatement(tallies, rollups);
    if (!statement) throw new Error('a batch with tallies has a statement');
    const used = [...statement.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(used)).toEqual(new Set(statement.args.map((_, i) => i + 1)));
    for (const table of [
      'tool_schemas',
      'tool_shapes',
      'tool_sources',
      'tool_paths',
      'tool_minutes',
      'tool_hours',
      'tool_client_minutes',
      'tool_client_hours',
    ])
      expect(statement.sql.split(`INSERT INTO ${table} `).length - 1, table).toBe(1);
    // No rollup row is locked, read back or updated: they are appended (pg-rollups.ts).
    expect(statement.sql).not.toMatch(/UPDATE tool_(client_)?(minutes|hours)/);
    // The detector tables' arguments are arrays of their one row each; the rollups' are array literals of one
    // row each (pg-array.ts), the tool's name among them.
    const rollupPart = statement.args.slice(-rollupArgs([]).length);
    expect(
      statement.args.slice(0, -rollupPart.length).every((a) => Array.isArray(a) && a.length === 1),
    ).toBe(true);
    expect(rollupPart.filter((a) => a === '{"get"}' || a === '{get}').length).toBe(4);
    expect(rollupPart.every((a) => typeof a === 'string' && a !== '{}')).toBe(true);
  });

  it('is nothing for a batch without tool calls', () => {
    expect(tallyStatement(newTallies(), [])).toBeNull();
  });

  it('appends no rollup row for a batch without rollups', () => {
    const tallies = newTallies();
    tallies.paths.set('p', { ...PATH, count: 2 });
    const statement = tallyStatement(tallies, []);
    const none = rollupArgs([]);
    expect(statement?.args.slice(-none.length)).toEqual(none);
    // Each an empty array, as the literal the collector writes for it (pg-array.ts).
    expect(none.every((a) => a === '{}')).toBe(true);
  });
});
