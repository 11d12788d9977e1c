// Migrations on a database written by an older collector: v9 finds call ids stored before it, exactly and by
// prefix, through the (slot, call_id) index; v5 builds each conversation's key filter from the
// calls already stored, so a loop that straddles the upgrade is still flagged.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readCalls, readSearch } from '../../../test/read-view.js';
import { writeSpans } from '../../../test/write-spans.js';
import { writeStagesSource } from '../../write-stages.js';
import { blockWhere } from '../call-block.js';
import { CALL_BUCKETS, callBucket } from '../call-bucket.js';
import { TOOL_IS } from '../call-row.js';
import { MIGRATIONS } from './schema.js';
import { openSqliteStorage } from './sqlite-storage.js';

function databaseAtVersion(version: number, path = ':memory:'): Database.Database {
  const db = new Database(path);
  for (const step of MIGRATIONS.slice(0, version)) {
    if (typeof step === 'string') db.exec(step);
    else step(db);
  }
  db.pragma(`user_version = ${version}`);
  return db;
}

describe('schema migrations', () => {
  it('v11 reads the narrowed call rows through the view by the same indexes as the table before', () => {
    const db = databaseAtVersion(MIGRATIONS.length);
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((p) => p.detail)
        .join(' | ');
    // A tool's page: its id once, then the (tool, time) index in order, with no sort.
    const page = plan(
      `SELECT * FROM tool_calls WHERE ${TOOL_IS.replace('?', "'get_order'")} AND start_ns >= 0 ORDER BY start_ns DESC LIMIT 9`,
    );
    expect(page).toMatch(/SEARCH c USING INDEX tool_calls_by_tool \(tool_id=\? AND start_ns>\?\)/);
    expect(page).not.toContain('TEMP B-TREE');
    // A filter on the name itself starts from the string table, and reads the same index.
    expect(plan("SELECT * FROM tool_calls WHERE tool = 'get_order' AND start_ns >= 0")).toMatch(
      /SEARCH tool USING COVERING INDEX sqlite_autoindex_strings_1.*SEARCH c USING INDEX tool_calls_by_tool/,
    );
    expect(plan("SELECT * FROM tool_calls WHERE trace_id = 'ab'")).toMatch(
      /SEARCH t USING COVERING INDEX traces_by_id.*SEARCH c USING INDEX tool_calls_by_trace/,
    );
    // A query that reads no trace id or string pays no join for them.
    expect(plan('SELECT span_id, start_ns FROM tool_calls WHERE trace_seq = 1')).toBe(
      'SEARCH c USING INDEX tool_calls_by_trace (trace_seq=?)',
    );
    db.close();
  });

  it('v9 indexes call ids by slot and id, and finds calls stored before it by exact id and by prefix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-v9-'));
    try {
      const path = join(dir, 'old.db');
      const old = databaseAtVersion(8, path);
      const now = BigInt(Date.now()) * 1_000_000n;
      const seq = Number(
        old
          .prepare('INSERT INTO traces (trace_id, first_ns) VALUES (?, ?)')
          .run('a'.repeat(32), now).lastInsertRowid,
      );
      const insert = old.prepare(
        `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, attempt, is_error, partial_effect, duration_ms,
          start_ns, kind, call_id, call_bucket) VALUES (?, ?, ?, 'get_order', 1, 0, 0, 1.5, ?, 2, ?, ?)`,
      );
      insert.run(
        seq,
        'a'.repeat(32),
        '1'.repeat(16),
        now - 1_000_000n,
        'toolu_01A09q',
        callBucket('toolu_01A09q'),
      );
      insert.run(
        seq,
        'a'.repeat(32),
        '2'.repeat(16),
        now,
        'toolu_01B77x',
        callBucket('toolu_01B77x'),
      );
      insert.run(seq, 'a'.repeat(32), '3'.repeat(16), now, null, null);
      // The hour's rollup, as the v8 writer kept it with every call (search reads which hours had calls).
      old
        .prepare(
          `INSERT INTO tool_hours (hour, tool, version, code, side, calls, errors, hist)
           VALUES (?, 'get_order', '', '', 'server', 3, 0, '{}')`,
        )
        .run(now / 3_600_000_000_000n);
      old.close();
      const storage = openSqliteStorage(path, {
        stages: writeStagesSource(),
        writerThread: false,
        readerThread: false,
      });
      try {
        const db = new Database(path, { readonly: true });
        const names = db
          .prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'tool_calls_by_call%'")
          .pluck()
          .all();
        expect(names).toEqual(['tool_calls_by_call_block']);
        const plan = db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT span_id FROM tool_calls
              WHERE ${blockWhere([1n, 0n])} AND call_id > ? AND call_id < ? AND call_id IS NOT NULL`,
          )
          .all('toolu_01', 'toolu_02') as { detail: string }[];
        expect(plan.map((p) => p.detail).join(' ')).toContain('tool_calls_by_call_block');
        db.close();
        const since = now - 86_400_000_000_000n;
        const found = async (q: string) =>
          (await readSearch(storage, q, since))
            .filter((h) => h.kind === 'call')
            .map((h) => h.label);
        expect(await found('toolu_01A09q')).toEqual(['call toolu_01A09q (get_order)']);
        // Newest first; a prefix is not a pattern.
        expect(await found('toolu_01')).toEqual([
          'call toolu_01B77x (get_order)',
          'call toolu_01A09q (get_order)',
        ]);
        expect(await found('toolu_0%')).toEqual([]);
        const page = await readCalls(storage, {
          sinceNs: since,
          untilNs: now + 1n,
          limit: 10,
          callId: 'toolu_01B77x',
        });
        expect(page.calls.map((c) => c.spanId)).toEqual(['2'.repeat(16)]);
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

  it('v5 keeps old flags and finds a loop across traces whose first calls were stored before the upgrade', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-v5-'));
    try {
      const path = join(dir, 'old.db');
      const old = databaseAtVersion(4, path);
      const now = BigInt(Date.now()) * 1_000_000n;
      const trace = old.prepare('INSERT INTO traces (trace_id, first_ns) VALUES (?, ?)');
      const call = old.prepare(
        `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, attempt, code, error_type, is_error, retryable,
          partial_effect, duration_ms, start_ns, input_hash, conversation_id, kind)
         VALUES (?, ?, ?, 'get_order', 1, 'FAILED', 'FAILED', 1, 0, 0, 1.5, ?, 'abababababababab', 'conv-old', 1)`,
      );
      for (const n of [1, 2]) {
        const id = String(n).repeat(32);
        const seq = Number(trace.run(id, now - 1_000_000_000n * BigInt(10 - n)).lastInsertRowid);
        call.run(seq, id, String(n).repeat(16), now - 1_000_000_000n * BigInt(10 - n));
        old.prepare('INSERT INTO conversation_traces VALUES (?, ?)').run('conv-old', seq);
      }
      old
        .prepare(
          `INSERT INTO flags (kind, severity, tool, scope, scope_key, trace_id, count, first_ns, last_ns, summary, evidence)
         VALUES ('silent_schema_change', 'error', 'x', 'trace', 't', 't', 2, 1, 2, 's', '{"inputHash":"cdcd"}')`,
        )
        .run();
      old.close();
      const storage = openSqliteStorage(path, {
        stages: writeStagesSource(),
        writerThread: false,
        readerThread: false,
      });
      const upgraded = new Database(path, { readonly: true });
      expect(upgraded.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(upgraded.prepare('SELECT input_hash FROM flags').pluck().get()).toBe('cdcd');
      upgraded.close();
      await writeSpans(storage, [
        {
          traceId: '3'.repeat(32),
          spanId: '3'.repeat(16),
          parentSpanId: null,
          name: 'execute_tool get_order',
          kind: 1,
          startNs: now,
          endNs: now + 1_000_000n,
          statusCode: 2,
          statusMessage: '',
          attributes: {
            'gen_ai.tool.name': 'get_order',
            'gen_ai.conversation.id': 'conv-old',
            'toolscope.input.hash': 'abababababababab',
            'toolscope.error.code': 'FAILED',
            'toolscope.retryable': false,
          },
          events: [],
          links: [],
          resource: {},
          scopeName: '',
          scopeVersion: '',
          truncatedKeys: [],
          droppedAttributes: 0,
        },
      ]);
      const flags = (
        await storage.storedFlags(now - 3_600_000_000_000n, now + 3_600_000_000_000n)
      ).filter((f) => f.kind === 'identical_retry');
      expect(flags.map((f) => [f.conversationId, f.count])).toEqual([['conv-old', 3]]);
      await storage.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
