// What a newcomer reads, in real Chromium against a real collector: every pinned flag on a story page whole,
// with its cost; no sparkline that says nothing (a short range puts every tool's calls in one step); counts and
// versions worded right; the timeline's legend on one line; a write retried without an idempotency key says
// why it must not be repeated as is. With TOOLSCOPE_SCREENSHOTS_DIR (`pnpm screenshots`: docs/screenshots) it
// pictures the story page and the overview for one minute; with TOOLSCOPE_SCREENSHOTS=1, into .screenshots/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import type { Flag, TimeseriesResponse } from '@toolscope/collector/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, screenshot, watchedPage } from './browser.js';
import { CONVERSATION, seedReadable } from './seed-readable.js';

let dir: string;
let collector: Collector;
let browser: Browser;
let firstCallMs: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolscope-readable-'));
  collector = await startCollector({ db: join(dir, 'toolscope.db'), port: 0 });
  ({ firstCallMs } = await seedReadable(collector.url));
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

/** The docs' pictures when asked for (a plain fixture, nothing hostile in it), else the ignored folder's. */
async function picture(page: Page, name: string, clip?: 'top'): Promise<void> {
  const docs = process.env.TOOLSCOPE_SCREENSHOTS_DIR;
  if (!docs) return screenshot(page, name);
  mkdirSync(docs, { recursive: true });
  await page.screenshot({
    path: join(docs, `${name}.png`),
    ...(clip ? { clip: { x: 0, y: 0, width: 1360, height: 620 } } : { fullPage: true }),
  });
}

/** Counts worded wrong ("1 calls") and versions prefixed twice ("vunversioned"). */
const MISWORDED =
  /\b1 (calls|tokens|result tokens|model tokens|model steps|traces|spans|tools|lighter tools)\b|vunversioned/;

describe('what a newcomer reads', () => {
  it('shows every pinned flag of a story whole, its cost visible, and the legend on one line', async () => {
    // Every flag of the fixture is about the conversation's one trace.
    const { flags: pinned } = await api<{ flags: Flag[] }>('/api/flags?since=24h');
    expect(pinned.map((f) => f.kind).sort()).toEqual([
      'identical_retry',
      'unrepaired_invalid_input',
      'unsafe_write_retry',
    ]);
    const costed = pinned.filter((f) => f.evidence.wasted);
    expect(costed.length).toBeGreaterThan(0);

    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/conversations/${CONVERSATION}`);
    const pins = w.page.locator('ul.pinned > li.pin');
    await pins.first().waitFor();
    expect(await pins.count()).toBe(pinned.length);
    for (const pin of await pins.all()) {
      // Nothing cut off: the line wraps instead of hiding its end behind an ellipsis.
      const fit = await pin.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(fit.scroll, (await pin.textContent()) ?? '').toBeLessThanOrEqual(fit.client + 1);
    }
    const chips = w.page.locator('ul.pinned .chip.wasted');
    expect(await chips.count()).toBe(costed.length);
    for (const chip of await chips.all()) {
      const box = await chip.boundingBox();
      const pin = await chip.locator('xpath=ancestor::li[1]').boundingBox();
      expect(box && pin && box.x + box.width <= pin.x + pin.width + 1).toBe(true);
      await expect.poll(() => chip.isVisible()).toBe(true);
    }
    // One call wasted reads "1 call".
    const one = costed.find((f) => f.evidence.wasted?.calls === 1);
    expect(one, 'the fixture has a loop that wasted one call').toBeDefined();
    expect(await chips.allTextContents()).toContainEqual(
      expect.stringMatching(/^wasted 1 call · /),
    );

    const items = w.page.locator('figcaption.legend .legend-item');
    expect(await items.allTextContents()).toEqual([' INVALID_INPUT', ' OK', ' RETRYABLE']);
    const tops = await Promise.all(
      (await items.all()).map(async (i) => (await i.boundingBox())?.y),
    );
    expect(new Set(tops).size).toBe(1);
    await picture(w.page, 'story-long-flag', 'top');
    expect(await w.page.locator('main').textContent()).not.toMatch(MISWORDED);
    expect(w.errors).toEqual([]);
  });

  it('says why a write that timed out must not be retried as is', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/conversations/${CONVERSATION}`);
    const row = w.page.locator('ol.story > li', { hasText: 'place_order' }).first();
    await row.waitFor();
    const mark = row.locator('.mark', { hasText: 'do not retry as is' });
    expect(await mark.getAttribute('title')).toMatch(/^a write without an idempotency key/);
    await row.locator('summary').click();
    const why = row.getByTestId('why-not-retry');
    expect(await why.textContent()).toBe(
      'Not retryable as is: a write without an idempotency key: its effect may already have happened, and repeating it could apply it twice; check its state, or retry with a key.',
    );
    // Beside the facts it explains.
    const fact = (label: string) => row.locator(`.fact:has(dt:text-is("${label}"))`).textContent();
    expect(await fact('code')).toBe('codeRETRYABLE');
    expect(await fact('retryable')).toBe('retryableno');
  });

  it('words counts and versions right on the tool page and in call lists', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/tools/lookup_once`);
    await w.page.getByRole('table', { name: 'versions and schema hashes' }).waitFor();
    expect(await w.page.locator('.stats > div').first().textContent()).toBe('1 call');
    expect(
      await w.page.getByRole('table', { name: 'versions and schema hashes' }).textContent(),
    ).toContain('(unversioned)');
    expect(await w.page.locator('main').textContent()).not.toMatch(MISWORDED);
    await w.page.goto(`${collector.url}/#/calls?tool=lookup_once`);
    const calls = w.page.getByRole('table', { name: 'calls' });
    await calls.waitFor();
    expect(await calls.textContent()).toContain('lookup_once (unversioned)');
    expect(await w.page.locator('main').textContent()).not.toMatch(MISWORDED);
  });

  it('draws a sparkline only for a tool whose calls fall in two steps or more', async () => {
    const w = await watchedPage(browser);
    // The default range (24 h), fitted to the calls: poll_status's two calls lie 30 minutes apart.
    await w.page.goto(`${collector.url}/`);
    await w.page.locator('tr[data-tool="poll_status"] svg.spark').waitFor();
    expect(await w.page.locator('svg.spark').count()).toBe(1);
    expect(await w.page.locator('tr[data-tool="place_order"] [data-col=spark]').textContent()).toBe(
      '–',
    );

    // One minute, the one the conversation's first call fell in.
    const from = Math.floor(firstCallMs / 60_000) * 60_000;
    const until = from + 60_000;
    const local = (ms: number) =>
      w.page.evaluate((t) => {
        const d = new Date(t);
        const p = (n: number) => String(n).padStart(2, '0');
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
      }, ms);
    await w.page.getByLabel('time range').selectOption('custom');
    const [fromInput, toInput] = await w.page.locator('form.custom-range input').all();
    await fromInput?.fill(await local(from));
    await toInput?.fill(await local(until));
    await w.page.getByRole('button', { name: 'Apply' }).click();
    await w.page.getByRole('region', { name: /^Tools, .* – / }).waitFor();
    await w.page.locator('table.tools').waitFor();
    // The rule, from the API: a line only for a tool with calls in two of the range's steps.
    const series = await api<TimeseriesResponse>(
      `/api/timeseries?since=${new Date(from).toISOString()}&until=${new Date(until).toISOString()}&byTool=true`,
    );
    const spread = (series.tools ?? []).filter((t) => t.calls.filter((c) => c > 0).length >= 2);
    await w.page.locator('.chart canvas').first().waitFor();
    expect(await w.page.locator('svg.spark').count()).toBe(spread.length);
    expect(await w.page.getByRole('columnheader', { name: 'Over time' }).count()).toBe(
      spread.length > 0 ? 1 : 0,
    );
    // The flags' cost shows below the table.
    await w.page.locator('li.flag .chip.wasted').first().waitFor();
    await picture(w.page, 'overview-one-minute');
    expect(w.errors).toEqual([]);
  });
});
