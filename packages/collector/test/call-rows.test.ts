// PostgreSQL's narrowed call rows (decision 0013): two collectors that meet the same new tools at once intern
// each string once and both read their calls back by name, and the view keeps the index paths the read SQL
// relies on. (SQLite's plans are held in sqlite/schema.test.ts; both backends' reads in the conformance suite.)
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../src/index.js';
import { TOOL_IS } from '../src/storage/call-row.js';
import { freshPgDatabase, PG_URL } from './backends.js';
import { callSpan, HOUR_NS, nowNs } from './conformance/spans.js';
import { readCalls } from './read-view.js';
import { writeSpans } from './write-spans.js';

describe('narrowed call rows on PostgreSQL', () => {
  it.skipIf(!PG_URL)(
    'interns new strings once under concurrent collectors, and reads through the indexes',
    async () => {
      const url = await freshPgDatabase();
      const a = await openStorage(url);
      const b = await openStorage(url);
      const client = new pg.Client(url);
      await client.connect();
      try {
        const tools = ['tool_a', 'tool_b', 'tool_c', 'tool_d'];
        // Each collector writes batches with the new tools in opposite orders, several at a time.
        const writes = [a, b].flatMap((s, side) =>
          Array.from({ length: 6 }, (_, i) =>
            writeSpans(
              s,
              (side ? [...tools].reverse() : tools).map((tool, span) =>
                callSpan({ trace: 100 + side * 10 + i, span: span + 1, tool }),
              ),
            ),
          ),
        );
        await Promise.all(writes);
        const strings = await client.query<{ value: string; n: string }>(
          'SELECT value, COUNT(*) AS n FROM strings GROUP BY value ORDER BY value',
        );
        expect(strings.rows.map((r) => [r.value, Number(r.n)])).toEqual(
          ['conformance', 'read', ...tools, 'customerId:number', 'toolscope']
            .sort()
            .map((v) => [v, 1]),
        );
        const window = { sinceNs: nowNs() - HOUR_NS, untilNs: nowNs() + HOUR_NS, limit: 100 };
        for (const tool of tools) {
          const { calls } = await readCalls(b, { ...window, tool });
          expect(calls).toHaveLength(12);
          expect(new Set(calls.map((c) => c.tool))).toEqual(new Set([tool]));
        }
        // Rows enough that the planner's choice means something: one busy tool beside the four rare ones.
        await client.query(
          `INSERT INTO tool_call_rows (trace_seq, start_ns, duration_ms, tool_id, attempt, is_error,
             partial_effect, kind, span_id)
           SELECT 1, g, 1, (SELECT id FROM strings WHERE value = 'read'), 1, 0, 0, 1, 'x'
             FROM generate_series(1, 50000) AS g`,
        );
        await client.query('ANALYZE');
        const plan = async (sql: string) =>
          (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows
            .map((r) => r['QUERY PLAN'])
            .join('\n');
        // A tool's page, as the calls API asks it: rows in time order from an index read backwards, no sort of
        // the tool's calls. (Which index depends on how common the planner takes the tool to be.)
        const page = await plan(
          `SELECT * FROM tool_calls WHERE ${TOOL_IS.replace('?', "'tool_a'")} ORDER BY start_ns DESC LIMIT 10`,
        );
        expect(page).toMatch(/Index Scan Backward using tool_calls_by_(tool|time)/);
        expect(page).not.toMatch(/Sort/);
        // A filter on the name itself starts from the string, then searches the index by its id.
        expect(await plan("SELECT id, start_ns FROM tool_calls WHERE tool = 'tool_a'")).toMatch(
          /on strings tool[\s\S]*Index Scan (using|on) tool_calls_by_tool/,
        );
        // A query that reads neither the trace id nor a string joins neither table.
        expect(
          await plan('SELECT span_id, start_ns FROM tool_calls WHERE trace_seq = 1'),
        ).not.toMatch(/strings|traces/);
      } finally {
        await client.end();
        await a.close();
        await b.close();
      }
    },
  );
});
