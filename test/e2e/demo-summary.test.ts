// `pnpm demo`'s summary keeps its promise: every flag with the trace that proves it (a loop's own trace, a
// drift flag's first listed one) or, for a flag read from a contract and not from calls, the tool's page that
// shows the contract; a missing flag said as missing; and after --exit it no longer points at a
// dashboard that stopped with the demo, but at the command that serves the same data again.
import { FLAG_KINDS, type Flag } from '@toolscope/collector/schemas';
import { describe, expect, it } from 'vitest';
import { EXPECTED_FLAGS } from '../../examples/orders-mcp/src/scenarios.js';
import { demoSummary } from '../../examples/orders-mcp/src/summary.js';

const flag = (f: Pick<Flag, 'kind' | 'tool' | 'summary'> & Partial<Flag>): Flag => ({
  severity: 'error',
  count: 1,
  firstSeen: '2026-12-01T10:00:00.000Z',
  lastSeen: '2026-12-01T10:00:01.000Z',
  evidence: {},
  ...f,
});

const LOOP = '4bf92f3577b34da6a3ce929d0e0e4736';
const DRIFT = '0af7651916cd43dd8448eb211c80319c';
const flags = [
  flag({
    kind: 'identical_retry',
    tool: 'get_order',
    summary: 'get_order was called 3 times with the same input.',
    traceId: LOOP,
  }),
  flag({
    kind: 'silent_schema_change',
    tool: 'get_order',
    summary: 'get_order version 2 was served with 2 schema hashes.',
    evidence: { traceIds: [DRIFT, LOOP] },
  }),
  // As the collector raises it: a weight, no call and so no trace.
  flag({
    kind: 'heavy_schema',
    tool: 'order search',
    severity: 'warning',
    summary:
      "order search's tools/list entry takes about 1382 tokens (4977 bytes), over the budget of 1000.",
    evidence: { schemaHashes: ['9c1f0e2a7b3d4c5e'], schemaTokens: 1382, budget: 1000 },
  }),
];
const expected = [
  { kind: 'identical_retry', tool: 'get_order' },
  { kind: 'silent_schema_change', tool: 'get_order' },
  { kind: 'version_skew', tool: 'catalogue_list' },
  { kind: 'heavy_schema', tool: 'order search' },
];
const place = {
  url: 'http://127.0.0.1:4318',
  db: '/repo/toolscope.db',
  defaultDb: '/repo/toolscope.db',
};

describe("the demo's summary", () => {
  it('names the trace that proves each flag, the contract for a flag no call proves, and what is missing', () => {
    const { text, missing } = demoSummary(flags, expected, { ...place, exit: false });
    expect(missing).toBe(1);
    expect(text.split('\n')).toEqual([
      'flags, each with the trace that proves it (or the page of the contract that does):',
      `  ✓ identical_retry               get_order       trace ${LOOP}`,
      '      get_order was called 3 times with the same input.',
      `  ✓ silent_schema_change          get_order       trace ${DRIFT}`,
      '      get_order version 2 was served with 2 schema hashes.',
      '  ✗ version_skew                  catalogue_list  missing',
      // The tool's page, its name encoded as the dashboard's links encode it.
      '  ✓ heavy_schema                  order search    contract #/tools/order%20search',
      "      order search's tools/list entry takes about 1382 tokens (4977 bytes), over the budget of 1000.",
      '',
      `dashboard: http://127.0.0.1:4318/ (the first trace above: http://127.0.0.1:4318/#/traces/${LOOP})`,
      'Ctrl-C stops the collector; the data stays in the database.',
      '',
    ]);
  });

  it('after --exit, says the collector stopped and how to serve the same data again', () => {
    const last = (db: string) =>
      demoSummary(flags, expected, { ...place, db, exit: true })
        .text.trimEnd()
        .split('\n')
        .slice(-2);
    expect(last(place.db)).toEqual([
      "The demo's collector has stopped with it; the data stays in /repo/toolscope.db.",
      `To look at it again: pnpm start, then open http://127.0.0.1:4318/#/traces/${LOOP} or search for any trace id above.`,
    ]);
    expect(last('/tmp/demo.db')[1]).toMatch(
      /^To look at it again: pnpm start --db \/tmp\/demo\.db, /,
    );
  });

  it('expects every flag kind the collector raises, so a new kind cannot be left out of the story', () => {
    expect(new Set(EXPECTED_FLAGS.map((e) => e.kind))).toEqual(new Set(FLAG_KINDS));
  });
});
