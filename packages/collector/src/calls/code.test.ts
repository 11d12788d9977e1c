// The code rule and its SQL twin say the same for every combination of the three inputs, on both backends:
// a failed call always has a code, and an empty code or error.type names none.
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CODE_KEY_SQL } from '../storage/sql/code-sql.js';
import { callCode, codeKey } from './code.js';

const CASES: {
  code: string | null;
  errorType: string | null;
  isError: boolean;
  want: string | null;
}[] = [
  { code: 'INVALID_INPUT', errorType: 'tool_error', isError: true, want: 'INVALID_INPUT' },
  { code: null, errorType: 'tool_error', isError: true, want: 'tool_error' },
  { code: null, errorType: '-32602', isError: false, want: '-32602' },
  { code: null, errorType: null, isError: true, want: 'ERROR' },
  { code: '', errorType: '', isError: true, want: 'ERROR' },
  { code: '', errorType: 'TimeoutError', isError: true, want: 'TimeoutError' },
  { code: null, errorType: null, isError: false, want: null },
  { code: '', errorType: null, isError: false, want: null },
];

/** The cases as one SELECT over a VALUES list, ordered by case number. */
function casesSql(param: (i: number) => string): { sql: string; args: (string | number | null)[] } {
  const args: (string | number | null)[] = [];
  const rows = CASES.map((c, i) => {
    args.push(i, c.code, c.errorType, c.isError ? 1 : 0);
    const at = i * 4;
    return `(${param(at + 1)}, ${param(at + 2)}, ${param(at + 3)}, ${param(at + 4)})`;
  });
  return {
    sql: `SELECT n, ${CODE_KEY_SQL} AS k FROM (VALUES ${rows.join(', ')}) AS t(n, code, error_type, is_error) ORDER BY n`,
    args,
  };
}

const expected = CASES.map((c) => c.want ?? '');

describe('the code rule', () => {
  it.each(CASES)('$code / $errorType / $isError → $want', ({ code, errorType, isError, want }) => {
    expect(callCode(code, errorType, isError)).toBe(want);
    expect(codeKey(code, errorType, isError)).toBe(want ?? '');
  });

  it('reads the same in SQLite', () => {
    const db = new Database(':memory:');
    // SQLite names VALUES columns column1…; a CTE gives them the table's names.
    const { args } = casesSql(() => '?');
    const rows = CASES.map(() => 'SELECT ?, ?, ?, ?').join(' UNION ALL ');
    const out = db
      .prepare(
        `WITH t(n, code, error_type, is_error) AS (${rows}) SELECT n, ${CODE_KEY_SQL} AS k FROM t ORDER BY n`,
      )
      .all(...args) as { k: string }[];
    db.close();
    expect(out.map((r) => r.k)).toEqual(expected);
  });

  it('reads the same in PostgreSQL', async () => {
    const url = process.env.TOOLSCOPE_TEST_PG;
    if (!url) {
      // Run without scripts/with-postgres.sh outside CI; CI always has the server.
      expect(process.env.CI).not.toBe('true');
      return;
    }
    const client = new pg.Client(url);
    await client.connect();
    try {
      const typed = (i: number) => (i % 4 === 1 || i % 4 === 0 ? `$${i}::int` : `$${i}::text`);
      const { sql, args } = casesSql(typed);
      const res = await client.query<{ k: string }>(sql, args);
      expect(res.rows.map((r) => r.k)).toEqual(expected);
    } finally {
      await client.end();
    }
  });
});
