// Whether agents recover, end to end on SQLite and PostgreSQL: the demo's recovery scenes played by the scripted
// agent's player against the example server (in process, real MCP client and server), every span sent by the real
// OTLP exporter to a collector on each backend, plus spans of two other dialects (gen_ai and the AI SDK in a trace
// without a conversation, OpenInference). The exact mix of EXPECTED_RECOVERY is then read from GET
// /api/tools/:name/recovery, GET /api/recovery, `report` (json and markdown, --db and --url), and the tool page
// and the overview in Chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import type { RecoveryResponse, ToolRecoveryResponse } from '@toolscope/collector/schemas';
import { playScene } from '@toolscope/example-orders-mcp/play';
import { EXPECTED_RECOVERY, RECOVERY_SCENES } from '@toolscope/example-orders-mcp/recovery-scenes';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPgDatabase, PG_URL } from '../../packages/collector/test/backends.js';
import { cli } from './cli-run.js';
import { ordersInProcess } from './orders-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-recovery-'));
type Backend = { name: string; db: string; collector: Collector };
const backends: Backend[] = [];
let browser: Browser | undefined;

/** Other dialects' tool spans as OTLP JSON: a gen_ai tool failing twice alike, then the AI SDK's tool (one trace, no
 * conversation); an OpenInference tool refused, then called with another input that succeeds. */
function foreignSpans() {
  const t0 = BigInt(Date.now()) * 1_000_000n;
  const at = (ms: number) => String(t0 + BigInt(ms) * 1_000_000n);
  const attrs = (a: Record<string, string>) =>
    Object.entries(a).map(([key, v]) => ({ key, value: { stringValue: v } }));
  const span = (trace: string, n: number, a: Record<string, string>, failed: boolean) => ({
    traceId: trace.repeat(32),
    spanId: `${trace}${n}`.padStart(16, '0'),
    name: 'tool',
    kind: 1,
    startTimeUnixNano: at(n * 10),
    endTimeUnixNano: at(n * 10 + 5),
    attributes: attrs(a),
    status: failed ? { code: 2 } : {},
  });
  const search = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'search_docs',
    'gen_ai.tool.call.arguments': '{"q":"refund policy"}',
    'error.type': 'timeout',
  };
  const lookup = (id: number) => ({
    'openinference.span.kind': 'TOOL',
    'tool.name': 'lookup',
    'input.value': `{"id":${id}}`,
  });
  const spans = [
    span('a', 1, search, true),
    span('a', 2, search, true),
    span('a', 3, { 'ai.toolCall.name': 'summarise', 'ai.toolCall.args': '{"text":"x"}' }, false),
    span('b', 1, lookup(1), true),
    span('b', 2, lookup(2), false),
  ];
  return {
    resourceSpans: [
      {
        resource: { attributes: attrs({ 'service.name': 'foreign-agent' }) },
        scopeSpans: [{ scope: { name: 'foreign' }, spans }],
      },
    ],
  };
}

beforeAll(async () => {
  const sqlite = join(dir, 'recovery.db');
  backends.push({
    name: 'sqlite',
    db: sqlite,
    collector: await startCollector({ db: sqlite, port: 0 }),
  });
  if (PG_URL) {
    const db = await freshPgDatabase();
    backends.push({ name: 'postgres', db, collector: await startCollector({ db, port: 0 }) });
  }
  const orders = await ordersInProcess(
    backends.map((b) => b.collector.url),
    true,
  );
  for (const scene of RECOVERY_SCENES) await playScene(scene, orders.player);
  await orders.flush();
  await orders.close();
  const body = JSON.stringify(foreignSpans());
  for (const b of backends) {
    const res = await fetch(`${b.collector.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const b of backends) await b.collector.close();
  rmSync(dir, { recursive: true, force: true });
});

async function api<T>(b: Backend, path: string): Promise<T> {
  const res = await fetch(`${b.collector.url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** The calls of the last hour as stored, one line each: start, tool, code, side, conversation, trace, span. */
async function storedCalls(b: Backend): Promise<string> {
  type Call = {
    startTime: string;
    tool: string;
    code: string | null;
    side: string;
    paired: boolean;
    conversationId: string | null;
    traceId: string;
    spanId: string;
  };
  const { calls } = await api<{ calls: Call[] }>(b, '/api/calls?since=1h&limit=200');
  return calls
    .map(
      (c) =>
        `${c.startTime} ${c.tool} ${c.code ?? 'ok'} ${c.side}${c.paired ? ' paired' : ''} ${c.conversationId ?? '-'} ${c.traceId} ${c.spanId}`,
    )
    .sort()
    .join('\n');
}

const outcomesByCode = (r: { byCode: { code: string; outcomes: object }[] }) =>
  Object.fromEntries(r.byCode.map((c) => [c.code, c.outcomes]));

const INVALID_INPUT_MESSAGE =
  'Invalid arguments for get_order: fix the fields listed in issues, then call again. The tool did not run.';
const INVALID_OUTPUT_MESSAGE =
  'get_order returned a result that breaks its output contract; stop and report it.';

if (!PG_URL)
  it.skip('on PostgreSQL: TOOLSCOPE_TEST_PG is not set (run through scripts/with-postgres.sh)', () => {});

describe.each(['sqlite', 'postgres'].filter((n) => n === 'sqlite' || PG_URL))(
  'recovery on %s',
  (name) => {
    const b = () => backends.find((x) => x.name === name) as Backend;

    it('counts exactly what the scripted agent did after each failed call, per tool and code', async () => {
      const getOrder = await api<ToolRecoveryResponse>(
        b(),
        '/api/tools/get_order/recovery?since=1h',
      );
      // On a mismatch the message lists the calls this backend stored, in start order, to tell a call stored
      // otherwise (its scope, order or side) from one read otherwise.
      expect(outcomesByCode(getOrder), await storedCalls(b())).toEqual(EXPECTED_RECOVERY.get_order);
      expect(getOrder).toMatchObject({
        failures: 8,
        recovered: 2,
        repairRate: 0.25,
        recoveredRate: 0.25,
        limited: false,
      });
      expect(getOrder.byCode.map((c) => [c.code, c.failures, c.repairRate])).toEqual([
        ['INVALID_INPUT', 6, 0.3333],
        ['INVALID_OUTPUT', 2, 0],
      ]);
      const intent = await api<ToolRecoveryResponse>(
        b(),
        '/api/tools/order_intent/recovery?since=1h',
      );
      expect(outcomesByCode(intent)).toEqual(EXPECTED_RECOVERY.order_intent);
      expect(intent.byCode[0]).toMatchObject({ failures: 2, recovered: 1, repairRate: 0.5 });
    });

    it('splits each code by the envelope message the agent was given', async () => {
      const getOrder = await api<ToolRecoveryResponse>(
        b(),
        '/api/tools/get_order/recovery?since=1h',
      );
      expect(getOrder.byMessage.map((m) => [m.code, m.message, m.failures, m.outcomes])).toEqual([
        ['INVALID_INPUT', INVALID_INPUT_MESSAGE, 6, EXPECTED_RECOVERY.get_order?.INVALID_INPUT],
        ['INVALID_OUTPUT', INVALID_OUTPUT_MESSAGE, 2, EXPECTED_RECOVERY.get_order?.INVALID_OUTPUT],
      ]);
      const intent = await api<ToolRecoveryResponse>(
        b(),
        '/api/tools/order_intent/recovery?since=1h',
      );
      expect(intent.byMessage.map((m) => [m.message, m.failures])).toEqual([
        ['sku_gone is out of stock', 2],
      ]);
    });

    it('reads other dialects the same way, a trace without a conversation as its own scope', async () => {
      const search = await api<ToolRecoveryResponse>(
        b(),
        '/api/tools/search_docs/recovery?since=1h',
      );
      expect(outcomesByCode(search)).toEqual({
        timeout: { repaired: 0, failed_again: 0, repeated: 1, switched: 1, gave_up: 0 },
      });
      const lookup = await api<ToolRecoveryResponse>(b(), '/api/tools/lookup/recovery?since=1h');
      expect(outcomesByCode(lookup)).toEqual({
        ERROR: { repaired: 1, failed_again: 0, repeated: 0, switched: 0, gave_up: 0 },
      });
      const missing = await fetch(`${b().collector.url}/api/tools/nope/recovery`);
      expect(missing.status).toBe(404);
    });

    it('gives the share recovered over every tool, and report shows the same numbers', async () => {
      const all = await api<RecoveryResponse>(b(), '/api/recovery?since=1h');
      expect(all).toMatchObject({
        failures: 13,
        recovered: 4,
        recoveredRate: 0.3077,
        outcomes: { repaired: 4, failed_again: 1, repeated: 3, switched: 3, gave_up: 2 },
      });
      expect(all.tools.map((t) => t.tool)).toEqual([
        'get_order',
        'lookup',
        'order_intent',
        'search_docs',
      ]);
      const sources = [
        ['--db', b().db],
        ...(name === 'sqlite' ? [['--url', b().collector.url]] : []),
      ];
      for (const source of sources) {
        const json = await cli(['report', ...source, '--since', '1h', '--format', 'json']);
        expect(json.code, json.err).toBe(0);
        const report = JSON.parse(json.out) as { recovery: RecoveryResponse };
        expect(report.recovery.tools, source[0]).toEqual(all.tools);
        const { code, out } = await cli([
          'report',
          ...source,
          '--since',
          '1h',
          '--tool',
          'get_order',
        ]);
        expect(code).toBe(0);
        expect(out).toContain('**get_order**: 8 failures, repair rate 25.0 %, recovered 25.0 %');
        expect(out).toContain('| INVALID_INPUT | 6 | 2 | 1 | 1 | 1 | 1 | 33.3 % |');
        expect(out).toContain('| INVALID_OUTPUT | 2 | 0 | 0 | 0 | 1 | 1 | 0.0 % |');
        expect(out).not.toContain('**order_intent**');
      }
    });

    it('shows them on the tool page and the overview (Chromium)', async () => {
      browser ??= await chromium.launch({
        executablePath: process.env.TOOLSCOPE_CHROMIUM ?? '/usr/bin/chromium',
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      const page = await browser.newPage();
      try {
        page.setDefaultTimeout(10_000);
        await page.goto(`${b().collector.url}/#/tools/get_order`);
        const table = page.getByRole('table', { name: 'recovery per code' });
        await table.waitFor();
        const rows = await table
          .locator('tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent)),
          );
        expect(rows).toEqual([
          ['INVALID_INPUT', '6', '2', '1', '1', '1', '1', '33.3 %'],
          ['INVALID_OUTPUT', '2', '0', '0', '0', '1', '1', '0.0 %'],
        ]);
        const messages = page.getByRole('table', { name: 'recovery per message' });
        expect(await messages.locator('tbody tr td').first().textContent()).toBe(
          INVALID_INPUT_MESSAGE,
        );
        await page.goto(`${b().collector.url}/#/`);
        const share = page.getByTestId('recovery-share');
        await share.waitFor();
        expect(await share.textContent()).toMatch(
          /^Agents recovered from 30\.8 % of 13 failed calls/,
        );
      } finally {
        await page.close();
      }
    });
  },
);
