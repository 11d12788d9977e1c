// The call-sides migration (SQLite v6, PostgreSQL v2) on databases written before it: stored calls get their
// source, stored client rows stay out of the statistics as they were, the rollups keep counting, and the
// tool_sources table knows each tool's source. Both backends, each from the schema the previous release wrote.
import { describe, expect, it } from 'vitest';
import type { Storage } from '../src/index.js';
import { PG_URL } from './backends.js';
import { upgradedPostgres, upgradedSqlite } from './old-databases.js';
import { readCalls, readTools } from './read-view.js';

const NOW = BigInt(Date.now()) * 1_000_000n;
const MINUTE = NOW / 60_000_000_000n - 2n;
const AT = MINUTE * 60_000_000_000n + 1_000_000n;

/** Rows as the previous release wrote them: a server call of ours, a client call, a GenAI-only call, rollups. */
const OLD_ROWS = [
  `INSERT INTO traces (seq, trace_id, first_ns) VALUES (1, '${'a'.repeat(32)}', ${AT})`,
  `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, schema_hash, attempt, is_error, partial_effect,
     duration_ms, start_ns, kind) VALUES (1, '${'a'.repeat(32)}', '${'1'.repeat(16)}', 'get_order', 'abcdabcdabcdabcd',
     1, 0, 0, 2, ${AT}, 2)`,
  `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, attempt, is_error, partial_effect, duration_ms,
     start_ns, kind) VALUES (1, '${'a'.repeat(32)}', '${'2'.repeat(16)}', 'get_order', 1, 0, 0, 3, ${AT}, 3)`,
  `INSERT INTO tool_calls (trace_seq, trace_id, span_id, tool, attempt, is_error, partial_effect, duration_ms,
     start_ns, kind) VALUES (1, '${'a'.repeat(32)}', '${'3'.repeat(16)}', 'web_search', 1, 0, 0, 4, ${AT}, 1)`,
  `INSERT INTO tool_minutes VALUES (${MINUTE}, 'get_order', '', '', 1, 0, '{"10":1}')`,
  `INSERT INTO tool_minutes VALUES (${MINUTE}, 'web_search', '', '', 1, 0, '{"12":1}')`,
];

async function expectUpgraded(s: Storage): Promise<void> {
  const since = NOW - 3_600_000_000_000n;
  const tools = await readTools(s, since, NOW);
  expect(tools.map((t) => [t.name, t.calls, t.sources])).toEqual([
    // Counted once (the server's row); seen from both: our server and a GenAI-semconv client.
    ['get_order', 1, ['gen_ai', 'toolscope']],
    ['web_search', 1, ['gen_ai']],
  ]);
  const clients = await readCalls(s, { sinceNs: since, untilNs: NOW, limit: 10, side: 'client' });
  expect(clients.calls.map((c) => [c.tool, c.source, c.paired])).toEqual([
    ['get_order', 'gen_ai', true],
  ]);
}

describe('the call-sides migration on an older database', () => {
  it('SQLite v5 → v6', () => upgradedSqlite(5, OLD_ROWS, expectUpgraded));

  it.skipIf(!PG_URL)('PostgreSQL v1 → v2', () => upgradedPostgres(1, OLD_ROWS, expectUpgraded));
});
