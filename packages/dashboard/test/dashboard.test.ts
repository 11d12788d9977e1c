// The dashboard in real Chromium against a real collector seeded through the OTLP protobuf exporter: the
// overview agrees with the API, a retry-loop flag leads to the failing attempt's validation paths in at most
// two clicks, hostile strings never run, the token gate works, and every view is screenshotted (with
// TOOLSCOPE_SCREENSHOTS=1).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import {
  formatPercent,
  type ToolDetailResponse,
  type ToolsResponse,
} from '@toolscope/collector/schemas';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, screenshot, watchedPage } from './browser.js';
import { CAPTURED_EMAIL, exportingProvider, HOSTILE, type Seeded, seed } from './seed.js';

let dir: string;
let collector: Collector;
let browser: Browser;
let seeded: Seeded;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolscope-dash-'));
  collector = await startCollector({ db: join(dir, 'toolscope.db'), port: 0 });
  seeded = await seed(collector.url);
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${collector.url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

describe('dashboard', () => {
  it('serves the page with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${collector.url}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const apiRes = await fetch(`${collector.url}/api/tools`);
    expect(apiRes.headers.get('content-security-policy')).toBe(csp);
  });

  it('shows per-tool numbers that agree with the API', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/`);
    await w.page.getByRole('table', { name: 'tool statistics' }).waitFor();
    const { tools } = await api<ToolsResponse>('/api/tools?since=24h');
    expect(tools.length).toBeGreaterThanOrEqual(3);
    for (const t of tools) {
      const row = w.page.locator('tr', {
        has: w.page.getByRole('link', { name: t.name, exact: true }),
      });
      expect(await row.locator('[data-col=calls]').textContent(), t.name).toBe(String(t.calls));
      expect(await row.locator('[data-col=errors]').textContent(), t.name).toBe(String(t.errors));
      expect(await row.locator('[data-col=errorRate]').textContent(), t.name).toBe(
        `${(t.errorRate * 100).toFixed(1)} %`,
      );
      expect(t.sources.length, t.name).toBeGreaterThan(0);
      expect(await row.locator('[data-col=sources]').textContent(), t.name).toBe(
        t.sources.join(', '),
      );
    }
    const getOrder = tools.find((t) => t.name === 'get_order');
    // 3 + 1 invalid (story and uncorrected first try) of 4 + 1 + 1 (captured) + 12 calls.
    expect(getOrder).toMatchObject({ calls: 18, errors: 4, codes: { INVALID_INPUT: 4 } });
    // Sorting by calls, ascending then descending, reorders the rows.
    const callsColumn = async () =>
      (await w.page.locator('table.tools tbody [data-col=calls]').allTextContents()).map(Number);
    const desc = await callsColumn();
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    await w.page.getByRole('button', { name: /^Calls/ }).click();
    expect(
      await w.page.getByRole('columnheader', { name: /^Calls/ }).getAttribute('aria-sort'),
    ).toBe('ascending');
    expect(await callsColumn()).toEqual([...desc].sort((a, b) => a - b));
    await w.page.getByRole('button', { name: /^Calls/ }).click();
    expect(await callsColumn()).toEqual(desc);
    // The loops' cost counts each wasted call once. The story's three refused calls are an identical retry and
    // an unrepaired invalid input of its trace (2 wasted calls each, the same two), and the same two flags of
    // its conversation, whose corrected turn repeats the input once more (3 wasted calls each, those two and
    // one more); the hostile tool's three refused calls are two flags naming the same 2 calls. So 2 loops of
    // 3 + 2 calls, where a sum flag by flag says 6 loops of 14. Their time is the real calls' (under a
    // millisecond in all on a quick run: formatMs then writes µs).
    expect(await w.page.getByTestId('loop-waste').textContent()).toMatch(
      /^2 loops wasted 5 calls, [0-9.]+ (µs|ms|s), /,
    );
    await w.page.locator('.chart canvas').first().waitFor();
    await screenshot(w.page, 'overview');
    expect(w.errors).toEqual([]);
    expect(await w.violations()).toEqual([]);
  });

  it('leads from a retry-loop flag to the failing attempt and its validation paths in one click', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/`);
    const flag = w.page.locator('li.flag[data-kind=unrepaired_invalid_input]', {
      hasText: 'get_order',
    });
    await flag.first().waitFor();
    await flag
      .first()
      .getByRole('link', { name: /^trace / })
      .first()
      .click();
    await w.page.waitForURL(new RegExp(`#/traces/${seeded.storyTraceId}`));
    const issues = w.page.getByRole('table', { name: 'validation issues' }).first();
    await issues.waitFor();
    expect(await issues.textContent()).toContain('customerId');
    expect(await issues.textContent()).toMatch(/expected string, received number/i);
    const story = w.page.locator('ol.story > li');
    expect(await story.count()).toBe(3);
    expect(await story.nth(2).textContent()).toContain('same input as #1');
    expect(await story.nth(0).textContent()).toContain('do not retry as is');
    await screenshot(w.page, 'timeline');
  });

  it('shows a captured payload redacted, and the raw value nowhere on the page', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/traces/${seeded.capturedTraceId}`);
    const args = w.page.locator('summary', { hasText: /^Arguments \(redacted\)$/ }).first();
    await args.waitFor({ state: 'attached' });
    expect(await args.locator('xpath=..').locator('pre.payload').textContent()).toContain(
      '[REDACTED:email]',
    );
    for (const d of await w.page.locator('details').all())
      await d.evaluate((el) => el.setAttribute('open', ''));
    expect(await w.page.locator('main').textContent()).not.toContain(CAPTURED_EMAIL);
    expect(w.errors).toEqual([]);
  });

  it('groups flags by kind and reaches the evidence from the flags view in two clicks', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/`);
    await w.page.getByRole('link', { name: 'Flags', exact: true }).click();
    const section = w.page.getByRole('region', { name: /Identical retries/ });
    await section.waitFor();
    const sections = await w.page.locator('section.panel h2').allTextContents();
    expect(sections.some((s) => s.startsWith('Invalid input repeated without repair (error'))).toBe(
      true,
    );
    await section
      .locator('li.flag', { hasText: 'get_order' })
      .getByRole('link', { name: /^trace / })
      .first()
      .click();
    await w.page.getByRole('table', { name: 'validation issues' }).first().waitFor();
    await w.page.goto(`${collector.url}/#/flags`);
    await section.waitFor();
    await screenshot(w.page, 'flags');
  });

  it('shows a tool page with versions, failing paths, shapes, latency and failing calls', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/tools/get_order`);
    const versions = w.page.getByRole('table', { name: 'versions and schema hashes' });
    await versions.waitFor();
    expect(await versions.locator('tbody tr').count()).toBe(1);
    expect(await versions.textContent()).toContain('2');
    const paths = w.page.getByRole('table', { name: 'failing paths' });
    expect(await paths.textContent()).toContain('customerId');
    expect(await paths.locator('td.num').first().textContent()).toBe('4');
    const shapes = w.page.getByRole('table', { name: 'input shapes' });
    expect(await shapes.locator('tbody tr').count()).toBe(2);
    const latency = w.page.getByRole('list', { name: 'latency distribution' });
    expect(await latency.locator('li').count()).toBeGreaterThan(0);
    // The y-axis counts calls up to the tallest bar; p50, p95 and p99 mark the bars that hold them.
    const counts = await latency
      .locator('li .sr-only')
      .allTextContents()
      .then((t) => t.map((x) => Number(/: (\d+) calls?$/.exec(x)?.[1])));
    const frame = w.page.locator('.hist-frame').first();
    expect(await frame.locator('.hist-y span').first().textContent()).toBe(
      String(Math.max(...counts)),
    );
    expect(
      await frame
        .locator('.hist-mark')
        .evaluateAll((m) => m.map((e) => e.getAttribute('data-mark'))),
    ).toEqual(['p50', 'p95', 'p99']);
    await w.page.getByRole('table', { name: 'calls' }).waitFor();
    expect(await w.page.getByRole('table', { name: 'calls' }).locator('tbody tr').count()).toBe(4);
    // Its calls named no MCP client: one row, "unknown", holding every call.
    const page = await api<ToolDetailResponse>('/api/tools/get_order?since=24h');
    const clients = w.page.getByRole('table', { name: 'clients', exact: true });
    expect(await clients.locator('tbody tr').allInnerTexts()).toEqual([
      `unknown\t–\t${page.stats.calls}\t${page.stats.errors} INVALID_INPUT\t${formatPercent(page.stats.errorRate)}`,
    ]);
    await screenshot(w.page, 'tool');
  });

  it('shows which clients call a tool, and one client’s tools from its link', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/tools/${encodeURIComponent(HOSTILE.tool)}`);
    const clients = w.page.getByRole('table', { name: 'clients', exact: true });
    await clients.waitFor();
    expect(await clients.locator('tbody tr').allInnerTexts()).toEqual([
      `${HOSTILE.client}\t${HOSTILE.clientVersion}\t2\t2 INVALID_INPUT\t100.0 %`,
      'cursor\t1.2.3\t1\t1 INVALID_INPUT\t100.0 %',
    ]);
    await screenshot(w.page, 'tool-clients');
    // A client's name leads to the tools it called, counted over its calls only.
    const tools = w.page.getByRole('table', { name: 'tool statistics' });
    /** The tool list once it shows `calls` for the hostile tool (the list loads after the route changes). */
    const listed = async (calls: string) => {
      await tools
        .locator(`tr[data-tool="${HOSTILE.tool.replaceAll('"', '\\"')}"] [data-col="calls"]`, {
          hasText: new RegExp(`^${calls}$`),
        })
        .waitFor();
      return tools
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [
            r.getAttribute('data-tool'),
            r.querySelector('[data-col="calls"]')?.textContent,
          ]),
        );
    };
    await clients.getByRole('link', { name: HOSTILE.client, exact: true }).click();
    expect(await listed('2')).toEqual([[HOSTILE.tool, '2']]);
    expect(await w.page.getByTestId('client-filter').textContent()).toContain('every client');
    expect(await w.page.getByRole('heading', { level: 2 }).first().textContent()).toContain(
      `Tools called by ${HOSTILE.client}`,
    );
    // Its version's link, the same from the other client's row, and back to every client.
    await w.page.goBack();
    await clients.getByRole('link', { name: '1.2.3', exact: true }).click();
    expect(await listed('1')).toEqual([[HOSTILE.tool, '1']]);
    expect(await w.page.getByRole('heading', { level: 2 }).first().textContent()).toContain(
      'Tools called by cursor 1.2.3',
    );
    await w.page.getByRole('link', { name: 'All clients' }).click();
    await listed('3');
    await tools.locator('tr[data-tool="get_order"]').waitFor();
    await w.page.getByTestId('client-filter').waitFor({ state: 'detached' });
    expect(await w.pwned()).toBeUndefined();
    expect(w.errors).toEqual([]);
  });

  it('finds a trace, a call id, a conversation and a code from the search box', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/`);
    const box = w.page.getByRole('searchbox');
    await box.fill(seeded.callId);
    await box.press('Enter');
    await w.page.getByRole('link', { name: new RegExp(`call ${seeded.callId}`) }).click();
    await w.page.locator('li.span.selected').waitFor();
    expect(await w.page.locator('li.span.selected .call').textContent()).toContain('call_7f3a9c');

    await box.fill(seeded.conversationId);
    await box.press('Enter');
    await w.page.getByRole('link', { name: `conversation ${seeded.conversationId}` }).click();
    await w.page.locator('ol.story > li').first().waitFor();
    // Both turns of the conversation, the failed ones and the repaired call.
    expect(await w.page.locator('ol.story > li').count()).toBe(5);
    expect(
      await w.page.locator('ol.story > li').last().locator('summary > .code').textContent(),
    ).toBe('OK');
    await screenshot(w.page, 'conversation');

    await box.fill(seeded.storyTraceId.toUpperCase());
    await box.press('Enter');
    await w.page.getByRole('link', { name: `trace ${seeded.storyTraceId}` }).click();
    await w.page.locator('ol.story').waitFor();

    await box.fill('REJECTED');
    await box.press('Enter');
    await w.page.getByRole('link', { name: 'code REJECTED' }).waitFor();
    await screenshot(w.page, 'search');
    await w.page.getByRole('link', { name: 'code REJECTED' }).click();
    const calls = w.page.getByRole('table', { name: 'calls' });
    await calls.waitFor();
    expect(await calls.locator('tbody tr').count()).toBe(3);
    await screenshot(w.page, 'calls');
  });

  it('renders hostile names and values as text and runs none of them', async () => {
    const w = await watchedPage(browser);
    const visit = async (hash: string, ready: string) => {
      await w.page.goto(`${collector.url}/${hash}`);
      await w.page.locator(ready).first().waitFor();
    };
    await visit('', 'table.tools');
    expect(await w.page.locator('table.tools').textContent()).toContain(HOSTILE.tool);
    await visit('#/flags', 'li.flag');
    expect(await w.page.locator('main').textContent()).toContain(HOSTILE.tool);
    await visit(`#/tools/${encodeURIComponent(HOSTILE.tool)}`, 'table[aria-label="failing paths"]');
    expect(await w.page.locator('main').textContent()).toContain(HOSTILE.path);
    const callers = (await w.page.locator('table[aria-label="clients"]').textContent()) ?? '';
    expect(callers).toContain(HOSTILE.client);
    expect(callers).toContain(HOSTILE.clientVersion);
    // The client's links stay inside the dashboard, the name and version percent-encoded into the fragment.
    const clientLinks = await w.page
      .locator('table[aria-label="clients"] a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(clientLinks.length).toBeGreaterThan(0);
    for (const href of clientLinks) expect(href).toMatch(/^#\/\?client=[^<>"' ]+$/);
    await visit(
      `#/?client=${encodeURIComponent(HOSTILE.client)}&clientVersion=${encodeURIComponent(HOSTILE.clientVersion)}`,
      'table.tools',
    );
    expect(await w.page.locator('main h2').first().textContent()).toContain(
      `${HOSTILE.client} ${HOSTILE.clientVersion}`,
    );
    await visit(`#/traces/${seeded.hostileTraceId}`, 'ol.timeline');
    // Open every collapsed detail so attribute keys and values are rendered too.
    for (const d of await w.page.locator('details').all())
      await d.evaluate((el) => el.setAttribute('open', ''));
    const text = (await w.page.locator('main').textContent()) ?? '';
    for (const s of [
      HOSTILE.spanName,
      HOSTILE.attrKey,
      HOSTILE.jsUrl,
      HOSTILE.service,
      HOSTILE.message,
      HOSTILE.path,
    ]) {
      expect(text, s).toContain(s);
    }
    // Span data is never a link (any sender could point the dashboard's users anywhere): the https and the
    // javascript: values are text, and every link on the page is one of the dashboard's own views.
    expect(text).toContain(HOSTILE.httpUrl);
    expect(await w.page.locator(`a[href="${new URL(HOSTILE.httpUrl).href}"]`).count()).toBe(0);
    const hrefs = await w.page
      .locator('a[href]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(hrefs.filter((h) => !h.startsWith('#'))).toEqual([]);
    expect(await w.page.locator('img, iframe, svg[onload], script:not([src])').count()).toBe(0);
    const handlers = await w.page.evaluate(
      () =>
        [...document.querySelectorAll('*')].filter((el) =>
          [...el.attributes].some((a) => a.name.toLowerCase().startsWith('on')),
        ).length,
    );
    expect(handlers).toBe(0);
    await visit(`#/conversations/${encodeURIComponent(HOSTILE.conversation)}`, 'ol.story');
    await visit(`#/search?q=${encodeURIComponent(HOSTILE.tool)}`, 'ul.results');
    await w.page.getByRole('link', { name: `tool ${HOSTILE.tool}` }).click();
    await w.page.locator('table[aria-label="failing paths"]').waitFor();
    expect(await w.pwned()).toBeUndefined();
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(await w.violations()).toEqual([]);
  });
});

describe('keyboard and error states', () => {
  it('reaches every control from the keyboard and sorts with Enter', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/`);
    await w.page.locator('table.tools').waitFor();
    const reached: string[] = [];
    for (let i = 0; i < 16; i++) {
      await w.page.keyboard.press('Tab');
      reached.push(
        await w.page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          const tag = el?.tagName.toLowerCase();
          const type = el?.getAttribute('type');
          const name = el?.getAttribute('aria-label') ?? el?.textContent?.trim() ?? '';
          return `${tag}${type === 'checkbox' ? '[checkbox]' : ''}:${name}`;
        }),
      );
    }
    for (const control of [
      'a:Overview',
      'a:Flags',
      'input:search by trace id, call id, conversation id, tool or code',
      'button:Search',
      'select:time range',
      'button:refresh now',
    ])
      expect(reached, control).toContain(control);
    expect(reached, 'the live checkbox').toContain('input[checkbox]:');
    expect(reached.some((r) => /^button:Tool/.test(r))).toBe(true); // the first sort header
    // Sorting from the keyboard: focus the Calls header and press Enter.
    await w.page.getByRole('button', { name: /^Calls/ }).focus();
    await w.page.keyboard.press('Enter');
    expect(
      await w.page.getByRole('columnheader', { name: /^Calls/ }).getAttribute('aria-sort'),
    ).toBe('ascending');
  });

  it('says what could not be found instead of showing an empty page', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/traces/${'ab'.repeat(16)}`);
    const alert = w.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Could not load .*trace/i);
    await w.page.goto(`${collector.url}/#/traces/not-a-trace-id`);
    // Same page, another hash: the previous alert may still be there for a moment, so wait for the new text.
    const malformed = w.page.getByRole('alert').filter({ hasText: /traceId|trace id/i });
    await malformed.waitFor();
    expect(await malformed.textContent()).toMatch(/traceId|trace id/i);
    expect(w.errors).toEqual([]);
  });
});

describe('time range and refresh', () => {
  it('narrows to a custom range, refreshes on demand and live', async () => {
    const w = await watchedPage(browser);
    // The page's clock runs as the real one, until the live refresh is due: then it runs 10 s ahead, firing the
    // timers on the way (a jump with fastForward stopped firing the live interval here, on this very code).
    await w.page.clock.install();
    await w.page.goto(`${collector.url}/`);
    const calls = w.page.locator('tr[data-tool="catalogue_list"] [data-col=calls]');
    await calls.waitFor();
    const before = Number(await calls.textContent());
    expect(before).toBeGreaterThan(0);

    // A custom range that ends before the data began: the overview is empty, and says so.
    await w.page.getByRole('combobox', { name: 'time range' }).selectOption('custom');
    const old = new Date(Date.now() - 3 * 86_400_000);
    const stamp = (d: Date) => {
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    await w.page.getByLabel('from', { exact: true }).fill(stamp(old));
    await w.page.getByLabel('to', { exact: true }).fill(stamp(new Date(old.getTime() + 3_600_000)));
    await w.page.getByRole('button', { name: 'Apply' }).click();
    await w.page.getByRole('heading', { name: 'No tool calls in this range yet' }).waitFor();
    // A start after the end is refused with a message, not sent.
    await w.page.getByLabel('to', { exact: true }).fill(stamp(new Date(old.getTime() - 3_600_000)));
    await w.page.getByRole('button', { name: 'Apply' }).click();
    await w.page
      .getByRole('alert')
      .getByText('the start must be a valid time before the end')
      .waitFor();
    await w.page.getByRole('combobox', { name: 'time range' }).selectOption('1h');
    await calls.waitFor();
    expect(Number(await calls.textContent())).toBe(before);

    // New calls show after "refresh now", then by themselves with live on (every 10 s).
    const more = async (n: number) => {
      const provider = exportingProvider(collector.url, 'refresh-test');
      const t = provider.getTracer('refresh');
      for (let i = 0; i < n; i++)
        t.startSpan('execute_tool catalogue_list', {
          attributes: { 'gen_ai.tool.name': 'catalogue_list' },
        }).end();
      await provider.shutdown();
    };
    await more(2);
    await w.page.getByRole('button', { name: 'refresh now' }).click();
    await w.page.waitForFunction(
      (want) =>
        document.querySelector('tr[data-tool="catalogue_list"] [data-col=calls]')?.textContent ===
        want,
      String(before + 2),
    );
    await w.page.getByRole('checkbox', { name: 'live' }).check();
    await more(3);
    await w.page.clock.runFor(10_000);
    await w.page.waitForFunction(
      (want) =>
        document.querySelector('tr[data-tool="catalogue_list"] [data-col=calls]')?.textContent ===
        want,
      String(before + 5),
    );
    expect(w.errors).toEqual([]);
  }, 40_000);
});

describe('dashboard states', () => {
  it('says how to send the first span when there is no data', async () => {
    const empty = await startCollector({ db: ':memory:', port: 0 });
    try {
      const w = await watchedPage(browser);
      await w.page.goto(`${empty.url}/`);
      await w.page.getByRole('heading', { name: 'No tool calls in this range yet' }).waitFor();
      expect(await w.page.locator('.empty').textContent()).toContain(`${empty.url}/v1/traces`);
      expect(await w.page.locator('.flags, p.state').first().textContent()).toBeTruthy();
      await screenshot(w.page, 'empty');
      // Pages keep connections open; close them first so the collector's close does not wait on them.
      await w.page.close();
    } finally {
      await empty.close();
    }
  });

  it('asks for the token, keeps it for the session, and takes one from the URL fragment', async () => {
    const token = 'dashboard-token-123';
    const gated = await startCollector({ db: ':memory:', port: 0, token });
    try {
      const w = await watchedPage(browser);
      await w.page.goto(`${gated.url}/`);
      const prompt = w.page.getByRole('form', { name: 'token' });
      await prompt.waitFor();
      await screenshot(w.page, 'login');
      await prompt.locator('input[type=password]').fill('wrong-token-0');
      await prompt.getByRole('button', { name: 'Continue' }).click();
      await w.page.getByText('The stored token was refused.').waitFor();
      await w.page.locator('input[type=password]').fill(token);
      await w.page.getByRole('button', { name: 'Continue' }).click();
      await w.page.getByRole('heading', { name: 'No tool calls in this range yet' }).waitFor();
      expect(await prompt.count()).toBe(0);
      await w.page.reload();
      await w.page.getByRole('heading', { name: 'No tool calls in this range yet' }).waitFor();

      const fresh = await watchedPage(browser);
      await fresh.page.goto(`${gated.url}/#token=${token}`);
      await fresh.page.getByRole('heading', { name: 'No tool calls in this range yet' }).waitFor();
      expect(fresh.page.url()).not.toContain(token);
      // The API itself still refuses a request without the token.
      expect((await fetch(`${gated.url}/api/tools`)).status).toBe(401);
      await w.page.close();
      await fresh.page.close();
    } finally {
      await gated.close();
    }
  });
});
