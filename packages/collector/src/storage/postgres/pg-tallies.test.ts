// The batch's tallies as one statement: every write's placeholders renumbered into one run from $1 to the last
// argument, each table written once, and no statement for a batch without tallies. The statement's effect on
// a real server is what the conformance and scale-out suites check.
import { describe, expect, it } from 'vitest';
import { accumulate, withHours } from '../../aggregation/rollups.js';
import { newTallies } from '../../aggregation/tallies.js';
import { tallyStatement } from './pg-tallies.js';

const T = 1_764_590_000_000_000_000n;

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
    tallies.paths.set('p', {
      tool: 'get',
      code: 'INVALID_INPUT',
      path: 'q',
      minute: 1n,
      count: 1,
      traceId: 't',
    });
    const minutes = new Map();
    accumulate(
      minutes,
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
    const statement = tallyStatement(tallies, withHours(minutes));
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
    // Every argument is a column of its table's rows, and each table has one row here.
    expect(statement.args.filter((a) => Array.isArray(a) && a.length === 1).length).toBe(
      statement.args.length,
    );
  });

  it('is nothing for a batch without tool calls', () => {
    expect(tallyStatement(newTallies(), [])).toBeNull();
  });
});
