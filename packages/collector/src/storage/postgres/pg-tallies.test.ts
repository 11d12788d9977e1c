// The batch's tallies as one statement: every write's placeholders renumbered into one run from $1 to the last
// argument, each table written once, and no statement for a batch without tallies. The statement's effect on
// a real server is what the conformance and scale-out suites check, and pg-rollups.test.ts for the rollups.
import { describe, expect, it } from 'vitest';
import { newTallies } from '../../aggregation/tallies.js';
import { NO_ROLLUP_UPDATES } from './pg-rollups.js';
import { tallyStatement } from './pg-tallies.js';

const T = 1_764_590_000_000_000_000n;
const PATH = { tool: 'get', code: 'INVALID_INPUT', path: 'q', minute: 1n, count: 1, traceId: 't' };

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
    // One rollup row to update in each table: each argument of ROLLUP_UPDATES an array of one.
    const updates = NO_ROLLUP_UPDATES.map(() => ['x']);
    const statement = tallyStatement(tallies, updates);
    if (!statement) throw new Error('a batch with tallies has a statement');
    const used = [...statement.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(used)).toEqual(new Set(statement.args.map((_, i) => i + 1)));
    for (const table of ['tool_schemas', 'tool_shapes', 'tool_sources', 'tool_paths'])
      expect(statement.sql.split(`INSERT INTO ${table} `).length - 1, table).toBe(1);
    for (const table of ['tool_minutes', 'tool_hours', 'tool_client_minutes', 'tool_client_hours'])
      expect(statement.sql.split(`UPDATE ${table} `).length - 1, table).toBe(1);
    // Every argument is a column of its table's rows, and each table has one row here.
    expect(statement.args.filter((a) => Array.isArray(a) && a.length === 1).length).toBe(
      statement.args.length,
    );
  });

  it('is nothing for a batch without tool calls', () => {
    expect(tallyStatement(newTallies(), null)).toBeNull();
  });

  it('updates no rollup row when every row of the batch was new', () => {
    const tallies = newTallies();
    tallies.paths.set('p', { ...PATH, count: 2 });
    const statement = tallyStatement(tallies, null);
    expect(statement?.args.slice(-NO_ROLLUP_UPDATES.length)).toEqual(NO_ROLLUP_UPDATES);
    // Each an empty array, as the literal the collector writes for it (pg-array.ts).
    expect(NO_ROLLUP_UPDATES.every((a) => a === '{}')).toBe(true);
  });
});
