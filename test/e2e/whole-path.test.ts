// The whole path in separate processes: the scripted agent drives the example MCP server (the stable
// deployment over Streamable HTTP as its own process, the canary over stdio as the agent's child, the SDK v2
// fulfilment deployment over Streamable HTTP as the agent's child, with a task and an input round), every
// process exports over OTLP protobuf to a collector process, and then: every expected flag is there with the
// right tool and trace, the quiet scenes made no flag, `toolscope report` exits 1 with the expected error
// rates, and the dashboard shows it in Chromium.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallsResponse,
  type Flag,
  formatCount,
  formatMs,
  type ToolDetailResponse,
  type ToolStats,
  type TraceResponse,
} from '@toolscope/collector/schemas';
import {
  DEMO_ROLLOUT_GRACE,
  EXPECTED_FLAGS,
  QUIET_SCENES,
  RESULT_FLAG_TOOL,
} from '@toolscope/example-orders-mcp/scenarios';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, start, stopAll } from './processes.js';

type Manifest = Record<string, { conversationId: string; traceIds: string[] }>;

let dir: string;
let url: string;
let manifest: Manifest;
let flags: Flag[];
/** One Chromium for the browser tests, launched on first use and closed after them all. */
let browser: Promise<Browser> | undefined;

const getJson = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolscope-e2e-'));
  const collector = start('packages/collector/src/cli/main.ts', [
    'serve',
    '--port',
    '0',
    '--grpc-port',
    '0',
    '--db',
    join(dir, 'toolscope.db'),
    '--rollout-grace',
    DEMO_ROLLOUT_GRACE,
  ]);
  url = (await collector.waitFor(/listening on (\S+)/))[1] as string;
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    TOOLSCOPE_HASH_KEY: 'e2e-key',
  };
  const stable = start(
    'examples/orders-mcp/src/server.ts',
    ['--http', '0', '--variant', 'stable'],
    otel,
  );
  const stableUrl = (await stable.waitFor(/listening on (\S+)/))[1] as string;
  const manifestPath = join(dir, 'manifest.json');
  const agent = start(
    'examples/orders-mcp/src/agent.ts',
    ['--stable', stableUrl, '--manifest', manifestPath],
    otel,
  );
  expect(await agent.exited, agent.output()).toBe(0);
  manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  // The HTTP server flushes its spans when it stops.
  stable.child.kill('SIGTERM');
  expect(await stable.exited).toBe(0);
  const deadline = Date.now() + 20_000;
  do {
    flags = (await getJson<{ flags: Flag[] }>('/api/flags?since=1h')).flags;
    const kinds = new Set(flags.map((f) => f.kind));
    if (EXPECTED_FLAGS.every((e) => kinds.has(e.kind))) break;
    await new Promise((r) => setTimeout(r, 250));
  } while (Date.now() < deadline);
  // A cap, not a wait: on a loaded machine (load 19) `pnpm demo --exit` took 80 s, its tasks' polls included.
}, 180_000);

afterAll(async () => {
  await (await browser)?.close();
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

/** A 1360×900 page in real Chromium; the test fails on any error the page throws. */
async function inChromium(fn: (page: Page) => Promise<void>): Promise<void> {
  browser ??= chromium.launch({
    executablePath: process.env.TOOLSCOPE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const page = await (await browser).newPage({ viewport: { width: 1360, height: 900 } });
  try {
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await fn(page);
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
}

/**
 * With TOOLSCOPE_SCREENSHOTS=1, into the ignored .screenshots/; `pnpm screenshots` points them at docs/screenshots.
 * A plain test run writes no file, tracked or not.
 */
const shot = async (page: Page, name: string): Promise<void> => {
  const dir =
    process.env.TOOLSCOPE_SCREENSHOTS_DIR ??
    (process.env.TOOLSCOPE_SCREENSHOTS === '1' ? join(ROOT, '.screenshots') : undefined);
  // None by default: they assert nothing, and cost seconds of the suite on a loaded machine.
  if (dir) await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
};

const traceOf = (scene: string) => manifest[scene]?.traceIds ?? [];

describe('agent → MCP server → collector → API, report and dashboard', () => {
  it('produces every expected flag with the right tool and the trace of its scene', async () => {
    for (const e of EXPECTED_FLAGS) {
      const candidates = flags.filter((f) => f.kind === e.kind && f.tool === e.tool);
      expect(candidates.length, `${e.kind} on ${e.tool}`).toBeGreaterThan(0);
      const traces = traceOf(e.scene);
      expect(traces.length).toBeGreaterThan(0);
      const linked = candidates.some(
        (f) =>
          (f.traceId !== undefined && traces.includes(f.traceId)) ||
          (f.evidence.traceIds ?? []).some((t) => traces.includes(t)),
      );
      if (e.kind === 'heavy_schema') {
        // Read from a contract, not from calls: no trace. The tool's page (what the demo's summary points to)
        // has the flagged contract, last called in the scene's trace.
        expect(linked, 'heavy_schema names no trace').toBe(false);
        const page = await getJson<ToolDetailResponse>(`/api/tools/${e.tool}?since=1h`);
        const hashes = candidates.flatMap((f) => f.evidence.schemaHashes ?? []);
        const flagged = page.versions.filter((v) => hashes.includes(v.schemaHash));
        expect(flagged.map((v) => traces.includes(v.lastTraceId))).toEqual([true]);
        expect(candidates[0]?.evidence.schemaTokens).toBeGreaterThan(
          candidates[0]?.evidence.budget ?? Number.POSITIVE_INFINITY,
        );
        continue;
      }
      expect(linked, `${e.kind} links a trace of scene ${e.scene}`).toBe(true);
    }
  });

  it('makes no retry-loop flag for the quiet scenes (corrected retry, transient retry, keyed write)', () => {
    for (const scene of QUIET_SCENES) {
      const traces = traceOf(scene);
      const wrong = flags.filter((f) => f.traceId !== undefined && traces.includes(f.traceId));
      expect(wrong, scene).toEqual([]);
    }
  });

  it('reads an input round and each polled task as one call, and flags only the task polled too fast', async () => {
    const callsOf = async (scene: string) =>
      (await getJson<CallsResponse>(`/api/calls?traceId=${traceOf(scene)[0]}&since=1h`)).calls;
    const [cancel] = await callsOf('cancel');
    expect(await callsOf('cancel')).toHaveLength(1);
    expect(cancel).toMatchObject({ tool: 'order_cancel', legs: 2, code: null, task: null });
    for (const scene of ['export', 'export-eager']) {
      const calls = await callsOf(scene);
      expect(calls, scene).toHaveLength(1);
      expect(calls[0], scene).toMatchObject({
        tool: 'order_export',
        code: null,
        task: { status: 'completed', pollIntervalMs: 1000 },
      });
    }
    const fast = flags.filter((f) => f.kind === 'polling_faster_than_interval');
    expect(fast.map((f) => f.traceId)).toEqual(traceOf('export-eager'));
    expect(fast[0]?.evidence.pollIntervalMs).toBe(1000);
    expect(fast[0]?.evidence.observedPollIntervalMs).toBeLessThanOrEqual(500);
  });

  it('flags what results cost only on the tool with heavy results, and weighs every tool', async () => {
    const resultFlags = flags.filter(
      (f) => f.kind === 'oversized_result' || f.kind === 'result_growth',
    );
    expect(resultFlags.map((f) => `${f.kind} ${f.tool}`).sort()).toEqual([
      `oversized_result ${RESULT_FLAG_TOOL}`,
      `result_growth ${RESULT_FLAG_TOOL}`,
    ]);
    const growth = resultFlags.find((f) => f.kind === 'result_growth');
    expect(growth?.evidence.versions).toEqual(['1', '2']);
    expect(growth?.evidence.ratio).toBeGreaterThanOrEqual(2);
    const { tools } = await getJson<{ tools: ToolStats[] }>('/api/tools?since=1h');
    for (const t of tools) {
      // Every tool of the demo is wrapped, so every one of its calls carries a size.
      expect(t.resultBytesP50, t.name).toBeGreaterThan(0);
      expect(t.resultTokensP95, t.name).toBeGreaterThan(0);
      if (t.name !== RESULT_FLAG_TOOL) expect(t.resultTokensP95, t.name).toBeLessThan(10_000);
    }
    const heavy = tools.find((t) => t.name === RESULT_FLAG_TOOL);
    expect(heavy?.resultSizes.map((v) => v.version)).toEqual(['1', '2']);
  });

  /**
   * The loop cost of the demo from its definition (docs/detectors.md, "Counted once"): the distinct calls the
   * loop flags name as wasted, each with the narrowest share a flag gives it, its result tokens as /api/calls
   * has them, and flags that share a call taken as one loop.
   */
  const distinctWaste = async () => {
    const loops = flags.filter((f) => f.evidence.wasted);
    const shares = new Map<string, { ms: number; modelTokens: number }>();
    const groups: Set<string>[] = [];
    for (const f of loops) {
      const spans = f.evidence.wasted?.spans ?? [];
      expect(spans.length, `${f.kind} names its wasted calls`).toBe(f.evidence.wasted?.calls);
      for (const x of spans) {
        const known = shares.get(x.spanId);
        if (!known || x.ms < known.ms) shares.set(x.spanId, x);
      }
      const ids = new Set(spans.map((x) => x.spanId));
      const joined = groups.filter((g) => [...g].some((id) => ids.has(id)));
      const group = new Set([...ids, ...joined.flatMap((g) => [...g])]);
      for (const g of joined) groups.splice(groups.indexOf(g), 1);
      groups.push(group);
    }
    const { calls } = await getJson<CallsResponse>('/api/calls?since=1h&limit=1000');
    const tokensOf = new Map(calls.map((c) => [c.spanId, c.resultTokens ?? 0]));
    let ms = 0;
    let resultTokens = 0;
    let modelTokens = 0;
    for (const [spanId, share] of shares) {
      expect(tokensOf.has(spanId), `wasted call ${spanId} is a stored call`).toBe(true);
      ms += share.ms;
      modelTokens += share.modelTokens;
      resultTokens += tokensOf.get(spanId) ?? 0;
    }
    return {
      flags: loops,
      loops: groups.length,
      calls: shares.size,
      ms,
      resultTokens,
      modelTokens,
    };
  };

  it('counts each wasted call of the demo once, though two of its flags name the same calls', async () => {
    const w = await distinctWaste();
    // The loop scene's identical retry and unrepaired invalid input name the same two wasted calls: added flag by
    // flag, the demo's loops would count them twice.
    const pinned = w.flags.filter((f) => f.tool === 'get_order' && f.evidence.wasted?.calls === 2);
    const byFlag = w.flags.reduce((n, f) => n + (f.evidence.wasted?.calls ?? 0), 0);
    expect(pinned.map((f) => f.kind).sort()).toEqual(
      expect.arrayContaining(['identical_retry', 'unrepaired_invalid_input']),
    );
    expect(w.loops).toBe(w.flags.length - 1);
    expect(w.calls).toBe(byFlag - 2);
  });

  it('joins the agent and server spans of a call in one trace', async () => {
    const traceId = traceOf('loop')[0] as string;
    const { spans } = await getJson<TraceResponse>(`/api/traces/${traceId}`);
    const turn = spans.find((s) => s.name === 'agent.turn loop');
    const clients = spans.filter((s) => s.kind === 3 && s.name === 'tools/call get_order');
    const servers = spans.filter((s) => s.kind === 2 && s.name === 'tools/call get_order');
    expect(turn?.resource['service.name']).toBe('scripted-agent');
    expect(clients).toHaveLength(3);
    expect(servers).toHaveLength(3);
    for (const s of servers) {
      expect(s.resource['service.name']).toBe('orders-mcp-stable');
      expect(clients.map((c) => c.spanId)).toContain(s.parentSpanId);
      expect(s.attributes['toolscope.error.code']).toBe('INVALID_INPUT');
      expect(s.attributes['network.transport']).toBe('tcp');
    }
  });

  it('fails `toolscope report` (exit 1) with the expected error rates', async () => {
    const report = start('packages/collector/src/cli/main.ts', [
      'report',
      '--url',
      url,
      '--since',
      '1h',
      '--format',
      'json',
      '--max-error-rate',
      '0.25',
    ]);
    expect(await report.exited).toBe(1);
    const body = JSON.parse(report.output()) as {
      tools: ToolStats[];
      passed: boolean;
      wasted: Omit<Awaited<ReturnType<typeof distinctWaste>>, 'flags'>;
    };
    const rates = Object.fromEntries(
      body.tools.map((t) => [t.name, [t.calls, t.errors, t.errorRate]]),
    );
    // get_order: loop 3/3, repair 1/2, transient 0/1, canary 0/5, enum 3/3, cycle 0/3, poll 0/5, and the
    // recovery scenes 8/10; catalogue_list: rollout 0/10, old clients 4/4, cycle 0/3, recovery 0/1;
    // order_intent: rejected 2/2, timeout 2/2, keyed 0/2, churn 4/4, recovery 2/3; order_history: flood 0/10;
    // order_export: two tasks, each one call however many polls; order_cancel: one call across two requests;
    // order_search: one call, quiet (its contract is what is flagged).
    expect(rates).toEqual({
      get_order: [32, 15, 0.4688],
      catalogue_list: [18, 4, 0.2222],
      order_intent: [13, 10, 0.7692],
      list_catalogue: [1, 0, 0],
      order_history: [10, 0, 0],
      order_export: [2, 0, 0],
      order_cancel: [1, 0, 0],
      order_search: [1, 0, 0],
    });
    expect(body.passed).toBe(false);
    // The loops' cost, summed as the overview sums it: each wasted call once.
    const w = await distinctWaste();
    expect(body.wasted).toMatchObject({
      loops: w.loops,
      calls: w.calls,
      resultTokens: w.resultTokens,
      modelTokens: w.modelTokens,
    });
    expect(body.wasted.ms).toBeCloseTo(w.ms, 6);
  });

  it('shows the tools and every flag kind in the dashboard (Chromium)', async () => {
    await inChromium(async (page) => {
      await page.goto(`${url}/`);
      await page.locator('table.tools').waitFor();
      const tools = await page.locator('table.tools tbody th a').allTextContents();
      expect(tools.sort()).toEqual([
        'catalogue_list',
        'get_order',
        'list_catalogue',
        'order_cancel',
        'order_export',
        'order_history',
        'order_intent',
        'order_search',
      ]);
      // The chart spans the demo's minutes, not the 24 h it was asked for: its axis starts within the hour.
      const chart = page.getByRole('img', { name: /calls and error rate/ });
      await page.waitForFunction(
        () => {
          const from = document.querySelector('.chart')?.getAttribute('data-from');
          return from ? Date.now() - Date.parse(from) < 3_600_000 : false;
        },
        undefined,
        { timeout: 10_000 },
      );
      expect(await chart.count()).toBeGreaterThan(0);
      // Calls stacked by outcome: successful calls and each failing code of the demo are layers of the chart.
      const legend = await page.locator('.chart .u-legend .u-label').allTextContents();
      for (const layer of ['OK', 'INVALID_INPUT', 'RETRYABLE', 'error rate'])
        expect(legend, legend.join(', ')).toContain(layer);
      // Axes: time, calls and error rate.
      expect(await page.locator('.chart .u-axis').count()).toBe(3);
      // Each tool's sparkline counts the calls its row counts, over the chart's steps; a tool whose calls all
      // fall in one step has none (readable.test.ts).
      const sparks = await page.locator('table.tools tbody tr').evaluateAll((rows) =>
        rows.map((r) => [
          r.querySelector('[data-col=calls]')?.textContent,
          r
            .querySelector('svg.spark')
            ?.getAttribute('aria-label')
            ?.match(/: (\d+) calls?/)?.[1],
        ]),
      );
      expect(sparks).toHaveLength(8);
      for (const [calls, sparkCalls] of sparks) if (sparkCalls) expect(sparkCalls).toBe(calls);
      await shot(page, 'overview');
      // The overview's loop cost is the sum over the distinct wasted calls.
      const w = await distinctWaste();
      const plural = (n: number, one: string) => `${formatCount(n)} ${one}${n === 1 ? '' : 's'}`;
      expect(await page.getByTestId('loop-waste').textContent()).toBe(
        `${plural(w.loops, 'loop')} wasted ${plural(w.calls, 'call')}, ${formatMs(w.ms)}, ${plural(w.resultTokens, 'result token')} and ${plural(w.modelTokens, 'model token')} in this range.`,
      );
      // The overview shows 8 flags and names the ones it left out.
      expect(await page.locator('ul.flags li.flag').count()).toBe(8);
      const leftOut = (await page.getByTestId('flags-left-out').textContent()) ?? '';
      const [, more, all] =
        /^(\d+) more not shown: .+ on .+\. All (\d+) flags$/.exec(leftOut) ?? [];
      expect(Number(all) - Number(more), leftOut).toBe(8);
      await page.goto(`${url}/#/flags`);
      await page.locator('li.flag').first().waitFor();
      const kinds = await page
        .locator('li.flag')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-kind')));
      for (const e of EXPECTED_FLAGS) expect(kinds, e.kind).toContain(e.kind);
      await shot(page, 'demo-flags');
      // The page of the tool with heavy results: its result sizes as a distribution and per version, v2 far above v1.
      await page.goto(`${url}/#/tools/${RESULT_FLAG_TOOL}`);
      const sizes = page.getByRole('table', { name: 'result sizes per version' });
      await sizes.waitFor();
      expect(
        await sizes
          .locator('tbody tr')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-version'))),
      ).toEqual(['1', '2']);
      const p95 = await sizes.locator('td[data-field="tokensP95"]').allTextContents();
      const [v1, v2] = p95.map((t) => Number(t.replaceAll(',', '')));
      expect(v2, p95.join(' / ')).toBeGreaterThan(2 * (v1 ?? 0));
      expect(
        await page.getByRole('list', { name: 'result size distribution' }).locator('.bar').count(),
      ).toBeGreaterThan(1);
      await shot(page, 'demo-result-sizes');
    });
  });

  it('tells the rollout conversation as one story that fits two screens (Chromium)', async () => {
    await inChromium(async (page) => {
      const conversation = manifest.rollout?.conversationId ?? '';
      await page.goto(`${url}/#/conversations/${encodeURIComponent(conversation)}`);
      const rows = page.locator('ol.story > li');
      await rows.first().waitFor();
      const pins = page.getByRole('list', { name: 'flags on this conversation' });
      await pins.waitFor();
      // 15 calls, each seen by the agent's MCP client and by the server: one row each, both spans merged.
      const sides = await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-sides')));
      expect(sides).toHaveLength(15);
      expect(new Set(sides)).toEqual(new Set(['client + server']));
      expect(await page.locator('details[open]').count()).toBe(0);
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      expect(height, 'page height with everything collapsed').toBeLessThanOrEqual(2 * 900);
      // Every call is a bar on the shared time axis.
      expect(
        await page
          .getByRole('img', { name: 'calls on a shared time axis' })
          .locator('rect[data-n]')
          .count(),
      ).toBe(15);
      // The drift flags of the rollout are pinned, and their links land on the flagged rows.
      const pinned = await pins.locator('li').allTextContents();
      expect(pinned.join('\n')).toMatch(/get_order/);
      const link = pins.getByRole('button', { name: /^go to call #\d+$/ }).first();
      const target = Number(((await link.getAttribute('aria-label')) ?? '').replace(/\D+/g, ''));
      await link.click();
      const focused = () =>
        page.evaluate(() => document.activeElement?.closest('li[data-n]')?.getAttribute('data-n'));
      expect(await focused()).toBe(String(target));
      // Keyboard: arrows and j/k move between calls, Home/End jump, Enter opens the focused one.
      await page.keyboard.press('Home');
      expect(await focused()).toBe('1');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('j');
      expect(await focused()).toBe('3');
      await page.keyboard.press('k');
      expect(await focused()).toBe('2');
      await page.keyboard.press('End');
      expect(await focused()).toBe('15');
      await page.keyboard.press('Enter');
      expect(await rows.nth(14).locator('details').first().getAttribute('open')).toBe('');
      await shot(page, 'conversation');
      // The loop's trace: its three refused calls, the same input each time.
      await page.goto(`${url}/#/traces/${traceOf('loop')[0]}`);
      await rows.first().waitFor();
      expect(await rows.count()).toBe(3);
      expect(await rows.nth(2).textContent()).toContain('same input as #1');
      await shot(page, 'timeline');
      // Search by prefix: a conversation id from its first letters.
      await page.goto(`${url}/#/search?q=conv-loo`);
      await page
        .getByRole('link', { name: `conversation ${manifest.loop?.conversationId}` })
        .waitFor();
      await shot(page, 'search');
      // The tool changed on the canary without a version bump: its page shows both contracts.
      await page.goto(`${url}/#/tools/get_order`);
      await page.getByRole('table', { name: 'contracts', exact: true }).waitFor();
      await shot(page, 'tool');
    });
  });
});
