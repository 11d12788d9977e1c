// The lookup of stored parts by their links reads the link indexes (sql/link-sql.ts), not the call rows: it runs
// in every batch that carries a part of a logical call, against a table of every call.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { linkedCallsQueries, SQLITE_MEMBER } from '../sql/link-sql.js';
import { migrate } from './schema.js';

describe('the lookup of parts by their links', () => {
  it('reads one link index per kind of link', () => {
    const db = new Database(':memory:');
    migrate(db);
    const links = { awaits: ['a'], resumes: ['b', 'c'], tasks: ['t'], locks: [] };
    const plans = linkedCallsQueries(SQLITE_MEMBER, links).map((q) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.args) as { detail: string }[])
        .map((r) => r.detail)
        .join(' | '),
    );
    expect(plans).toHaveLength(3);
    for (const [i, kind] of ['awaits', 'resumes', 'task'].entries())
      expect(plans[i]).toContain(`USING INDEX tool_call_rows_by_${kind}`);
    db.close();
  });
});
