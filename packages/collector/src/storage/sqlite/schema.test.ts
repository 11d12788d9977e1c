// Migrations on a database written by an older collector: v4 gives existing tool calls their call-id bucket,
// and lookups by call id find them through the new index.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CALL_BUCKETS, callBucket } from '../call-bucket.js';
import { MIGRATIONS, migrate } from './schema.js';

function databaseAtVersion(version: number): Database.Database {
  const db = new Database(':memory:');
  for (const step of MIGRATIONS.slice(0, version)) {
    if (typeof step === 'string') db.exec(step);
    else step(db);
  }
  db.pragma(`user_version = ${version}`);
  return db;
}

describe('schema migrations', () => {
  it('v4 fills call_bucket for calls stored by v3 and serves lookups from the bucketed index', () => {
    const db = databaseAtVersion(3);
    const insert = db.prepare(
      `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, attempt, is_error, partial_effect, duration_ms,
        start_ns, kind, call_id) VALUES (1, ?, ?, 'get_order', 1, 0, 0, 1.5, ?, 2, ?)`,
    );
    insert.run('a'.repeat(32), '1'.repeat(16), 1_000, 'call_42');
    insert.run('a'.repeat(32), '2'.repeat(16), 2_000, null);
    expect(migrate(db)).toEqual({ from: 3, to: MIGRATIONS.length });
    const rows = db
      .prepare('SELECT call_id, call_bucket FROM tool_calls ORDER BY start_ns')
      .all() as { call_id: string | null; call_bucket: number | null }[];
    expect(rows).toEqual([
      { call_id: 'call_42', call_bucket: callBucket('call_42') },
      { call_id: null, call_bucket: null },
    ]);
    const plan = db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT span_id FROM tool_calls WHERE call_bucket = ? AND start_ns >= ? AND call_id = ?',
      )
      .all(callBucket('call_42'), 0, 'call_42') as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain('tool_calls_by_call');
    expect(
      db.prepare("SELECT name FROM sqlite_schema WHERE name = 'tool_calls_by_call_id'").get(),
    ).toBeUndefined();
  });

  it('keeps call buckets stable (stored rows depend on them) and spread over all buckets', () => {
    // Fixed values: changing the function would strand every stored call id in the wrong bucket.
    expect(['call_42', 'call_abc', '', 'toolu_01A09q90qw90lq917835lq9'].map(callBucket)).toEqual([
      16, 38, 5, 53,
    ]);
    const counts = new Array<number>(CALL_BUCKETS).fill(0);
    for (let i = 0; i < 64_000; i++) {
      const b = callBucket(`call_${(i * 2654435761).toString(36)}`);
      counts[b] = (counts[b] ?? 0) + 1;
    }
    // 1,000 expected per bucket; a bad hash would pile ids into a few.
    for (const c of counts) expect(c).toBeGreaterThan(800);
  });
});
