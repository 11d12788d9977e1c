// The contracts migration (SQLite v7, PostgreSQL v3) on databases written by the previous schema: stored calls
// read with no exception, a stored client row's unsaid partial effect becomes unknown while a server row of ours
// keeps its "no", a contract known from calls is listed unreported, and new contract spans are stored.
import { describe, expect, it } from 'vitest';
import type { Storage } from '../src/index.js';
import { PG_URL } from './backends.js';
import { callSpan } from './conformance/spans.js';
import { upgradedPostgres, upgradedSqlite } from './old-databases.js';
import { readCalls, readContracts, readTools } from './read-view.js';
import { writeSpans } from './write-spans.js';

const NOW = BigInt(Date.now()) * 1_000_000n;
const AT = NOW - 120_000_000_000n;
const TRACE = 'b'.repeat(32);

/** Rows as the previous release wrote them: our server call, a client call of it, its schema hash. */
const OLD_ROWS = [
  `INSERT INTO traces (seq, trace_id, first_ns) VALUES (1, '${TRACE}', ${AT})`,
  `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, version, schema_hash, attempt, is_error, partial_effect,
     duration_ms, start_ns, kind, source, paired) VALUES (1, '${TRACE}', '${'1'.repeat(16)}', 'get_order', '2',
     'abcdabcdabcdabcd', 1, 0, 0, 2, ${AT}, 2, 'toolscope', 0)`,
  `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, attempt, is_error, partial_effect, duration_ms,
     start_ns, kind, source, paired) VALUES (1, '${TRACE}', '${'2'.repeat(16)}', 'get_order', 1, 0, 0, 3, ${AT}, 3,
     'toolscope', 1)`,
  `INSERT INTO tool_schemas (tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id)
     VALUES ('get_order', '2', 'abcdabcdabcdabcd', ${AT}, ${AT}, 1, '${TRACE}')`,
];

async function expectUpgraded(s: Storage): Promise<void> {
  const window = { sinceNs: NOW - 3_600_000_000_000n, untilNs: NOW, limit: 10 };
  const server = (await readCalls(s, { ...window, side: 'server' })).calls;
  const client = (await readCalls(s, { ...window, side: 'client' })).calls;
  expect(server.map((c) => [c.partialEffect, c.exceptionType, c.exceptionMessage])).toEqual([
    [false, null, null],
  ]);
  expect(client.map((c) => c.partialEffect)).toEqual([null]);
  expect((await readContracts(s, 'get_order'))?.map((c) => [c.schemaHash, c.reported])).toEqual([
    ['abcdabcdabcdabcd', false],
  ]);
  const threw = callSpan({ trace: 77, span: 1, tool: 'get_weather', code: 'FAILED' });
  threw.events = [
    { timeNs: threw.startNs, name: 'exception', attributes: { 'exception.type': 'RangeError' } },
  ];
  await writeSpans(s, [threw]);
  const [weather] = await readTools(s, window.sinceNs, NOW + 3_600_000_000_000n, 'get_weather');
  expect(weather?.exceptions).toEqual([{ type: 'RangeError', count: 1 }]);
}

describe('the contracts migration on an older database', () => {
  it('SQLite v6 → v7', () => upgradedSqlite(6, OLD_ROWS, expectUpgraded));

  it.skipIf(!PG_URL)('PostgreSQL v2 → v3', () => upgradedPostgres(2, OLD_ROWS, expectUpgraded));
});
