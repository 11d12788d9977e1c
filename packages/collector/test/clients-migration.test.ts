// The traffic-by-client migration (SQLite v14, PostgreSQL v10) on a store written before it: the client rollups
// it fills from the stored calls answer exactly what the writer's own client rollups answer for the same calls
// (a tool page's clients, one client's tools on each side, over the rollups and over raw edges), and new calls
// add to them. The store "before" is today's store taken back to the previous schema: the client version
// column, the view's revision that reads it and the client rollups dropped, the schema version set back.
import { describe, expect, it } from 'vitest';
import { toolPage } from '../src/api/tool-page.js';
import { toolStats } from '../src/api/tool-stats.js';
import type { CallSide } from '../src/calls/sides.js';
import type { Storage } from '../src/index.js';
import { callView } from '../src/storage/call-row.js';
import { key as sqliteKey } from '../src/storage/sqlite/call-layout.js';
import { BACKENDS, execRaw, open } from './backends.js';
import { type CallSpec, callSpan, HOUR_NS, nowNs } from './conformance/spans.js';
import { useStores } from './conformance/stores.js';
import { writeSpans } from './write-spans.js';

const CLIENT = 3;
const MIN = 60_000;

/** A call span of `client` (none: the span names no client). */
function byClient(client: string | null, spec: CallSpec) {
  const span = callSpan(spec);
  if (client !== null) span.attributes['toolscope.mcp.client.name'] = client;
  return span;
}

const SPANS = [
  byClient('cursor', { trace: 1, span: 1, agoMs: 70 * MIN, durationMs: 12, resultTokens: 300 }),
  byClient('cursor', { trace: 2, span: 1, agoMs: 3 * MIN, code: 'INVALID_INPUT', durationMs: 2 }),
  // Both sides of one call: counted once, from the server's row.
  byClient('cursor', { trace: 3, span: 1, kind: CLIENT, agoMs: 3 * MIN, durationMs: 40 }),
  byClient('cursor', { trace: 3, span: 2, parent: 1, agoMs: 3 * MIN, durationMs: 30 }),
  byClient('cursor', { trace: 7, span: 1, tool: 'search_docs', agoMs: 2 * MIN }),
  // The proxy's view of a call and the server's below it: counted once.
  byClient('claude-desktop', { trace: 6, span: 1, proxy: true, agoMs: 2 * MIN, durationMs: 9 }),
  byClient('claude-desktop', { trace: 6, span: 2, parent: 1, agoMs: 2 * MIN, durationMs: 8 }),
  byClient('claude-desktop', {
    trace: 4,
    span: 1,
    agoMs: 10_000,
    code: 'REJECTED',
    resultTokens: 1_200,
  }),
  byClient(null, { trace: 5, span: 1, agoMs: 2 * MIN, code: 'FAILED' }),
];

/** What the tool page and /api/tools say of each client, over a range read from rollups and one with raw edges. */
async function answers(s: Storage) {
  const now = nowNs();
  const out: unknown[] = [];
  for (const [since, until] of [
    [now - 2n * HOUR_NS, now + HOUR_NS],
    [now - 5n * 60_000_000_000n + 1n, now + 1n],
  ] as const) {
    out.push((await toolPage(s, 'get_order', since, until))?.clients);
    for (const name of ['cursor', 'claude-desktop'])
      for (const side of ['any', 'server', 'client'] as CallSide[])
        out.push(await toolStats(s, since, until, undefined, side, { name }));
  }
  return out;
}

/** PostgreSQL's rollup rows one per key again, as before they were appended (pg-rollups.ts, schema v13). */
const APPENDED_ROLLUPS_UNDONE = [
  ['tool_minutes', 'minute'],
  ['tool_hours', 'hour'],
]
  .map(
    ([table, column]) => `DROP INDEX ${table}_by_key; DROP INDEX ${table}_unmerged;
     ALTER TABLE ${table} DROP COLUMN merged, ADD PRIMARY KEY (${column}, tool, version, code, side);`,
  )
  .join('\n');

/**
 * Takes a store back to the schema before traffic by client, undoing the later logical-call steps first (the
 * link indexes, sql/link-sql.ts, and the columns, sql/logical-migration.ts) so the migrations after it run as they
 * do on an old store.
 */
async function previousSchema(backend: string, db: string): Promise<void> {
  const pg = backend === 'postgres';
  await execRaw(
    db,
    `DROP VIEW tool_calls;
     DROP INDEX tool_call_rows_by_awaits;
     DROP INDEX tool_call_rows_by_resumes;
     DROP INDEX tool_call_rows_by_task;
     ALTER TABLE tool_call_rows DROP COLUMN logical;
     ALTER TABLE tool_call_rows DROP COLUMN part;
     ALTER TABLE tool_call_rows DROP COLUMN client_version;
     DROP TABLE tool_client_minutes;
     DROP TABLE tool_client_hours;
     ${callView(pg ? (column) => `c.${column}` : sqliteKey, 2)};
     ${pg ? `${APPENDED_ROLLUPS_UNDONE}\n UPDATE toolscope_schema SET version = 9` : 'PRAGMA user_version = 13'};`,
  );
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`the traffic-by-client migration: ${backend.name}`, () => {
    const { fresh, openAt, closedByTest } = useStores(backend);

    it('fills the client rollups from the stored calls as the writer fills them', async () => {
      const place = await fresh();
      const before = await openAt(place);
      await writeSpans(before, SPANS);
      const written = await answers(before);
      // Not a comparison of empty answers.
      expect(written[0]).toEqual([
        {
          name: 'cursor',
          version: null,
          calls: 3,
          errors: 1,
          errorRate: 0.3333,
          topCode: 'INVALID_INPUT',
        },
        {
          name: 'claude-desktop',
          version: null,
          calls: 2,
          errors: 1,
          errorRate: 0.5,
          topCode: 'REJECTED',
        },
        { name: null, version: null, calls: 1, errors: 1, errorRate: 1, topCode: 'FAILED' },
      ]);
      expect(written[1]).toMatchObject([
        { name: 'get_order', calls: 3, errors: 1, resultTokensMax: 300 },
        { name: 'search_docs', calls: 1 },
      ]);
      await before.close();
      closedByTest(before);

      await previousSchema(backend.name, place.db);
      const upgraded = await open(place.db);
      try {
        expect(await answers(upgraded)).toEqual(written);
        // A new call of a known client adds to its rows; its version is kept from now on.
        const next = byClient('cursor', { trace: 8, span: 1, agoMs: 3 * MIN });
        next.attributes['toolscope.mcp.client.version'] = '1.2.3';
        await writeSpans(upgraded, [next]);
        const now = nowNs();
        const clients = (await toolPage(upgraded, 'get_order', now - HOUR_NS, now))?.clients;
        expect(clients?.filter((c) => c.name === 'cursor')).toMatchObject([
          { version: null, calls: 2 },
          { version: '1.2.3', calls: 1 },
        ]);
      } finally {
        await upgraded.close();
      }
    });
  });
}
