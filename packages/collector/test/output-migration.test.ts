// The result-size migration (SQLite v8, PostgreSQL v4) on databases written by the previous schema: a stored
// call and its rollup read with no size, and a new sized call adds to that same rollup row (the minute it
// shares), so the tool's sizes count only the calls that carried one.
import { describe, expect, it } from 'vitest';
import type { Storage } from '../src/index.js';
import { PG_URL } from './backends.js';
import { callSpan } from './conformance/spans.js';
import { upgradedPostgres, upgradedSqlite } from './old-databases.js';
import { readCalls, readTools } from './read-view.js';
import { writeSpans } from './write-spans.js';

const NOW_MS = Date.now();
// Two minutes ago, at the start of that minute: the old row's minute, which a new call can still land in.
const MINUTE_MS = Math.floor((NOW_MS - 120_000) / 60_000) * 60_000;
const AT = BigInt(MINUTE_MS) * 1_000_000n;
const TRACE = 'c'.repeat(32);

const OLD_ROWS = [
  `INSERT INTO traces (seq, trace_id, first_ns) VALUES (1, '${TRACE}', ${AT})`,
  `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, version, schema_hash, attempt, is_error, partial_effect,
     duration_ms, start_ns, kind, source, paired) VALUES (1, '${TRACE}', '${'1'.repeat(16)}', 'get_order', '2',
     'abcdabcdabcdabcd', 1, 0, 0, 2, ${AT}, 2, 'toolscope', 0)`,
  `INSERT INTO tool_minutes (minute, tool, version, code, side, calls, errors, hist)
     VALUES (${MINUTE_MS / 60_000}, 'get_order', '2', '', 'server', 1, 0, '{"155":1}')`,
  `INSERT INTO tool_hours (hour, tool, version, code, side, calls, errors, hist)
     VALUES (${Math.floor(MINUTE_MS / 3_600_000)}, 'get_order', '2', '', 'server', 1, 0, '{"155":1}')`,
];

async function expectUpgraded(s: Storage): Promise<void> {
  const since = AT - 3_600_000_000_000n;
  const until = BigInt(NOW_MS + 60_000) * 1_000_000n;
  const [before] = await readTools(s, since, until, 'get_order');
  expect(before?.calls).toBe(1);
  expect([before?.resultBytesP50, before?.resultSizes]).toEqual([null, []]);
  const [old] = (await readCalls(s, { sinceNs: since, untilNs: until, limit: 5 })).calls;
  expect([old?.resultBytes, old?.resultTokens]).toEqual([null, null]);
  const sized = callSpan({ trace: 91, span: 1, version: '2', agoMs: NOW_MS - MINUTE_MS - 1_000 });
  sized.attributes['toolscope.output.bytes'] = 4_000;
  sized.attributes['toolscope.output.tokens'] = 1_200;
  await writeSpans(s, [sized]);
  const [after] = await readTools(s, since, until, 'get_order');
  expect(after?.calls).toBe(2);
  expect(after?.resultSizes.map((v) => [v.version, v.measured, v.bytesMax, v.tokensMax])).toEqual([
    ['2', 1, 4_000, 1_200],
  ]);
}

describe('the result-size migration on an older database', () => {
  it('SQLite v7 → v8', () => upgradedSqlite(7, OLD_ROWS, expectUpgraded));

  it.skipIf(!PG_URL)('PostgreSQL v3 → v4', () => upgradedPostgres(3, OLD_ROWS, expectUpgraded));
});
