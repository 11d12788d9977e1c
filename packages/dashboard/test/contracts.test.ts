// The contract views in real Chromium against a real collector fed by the OTLP exporter: the tool page's
// Contracts section lists each contract with its services and weight and shows a readable diff, a deprecated
// tool gets its banner, the call card says what a call threw, and the overview lists the heaviest schemas as
// the API weighs them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import type { ToolsResponse } from '@toolscope/collector/schemas';
import { defineTool } from '@toolscope/instrument';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { launch, screenshot, watchedPage } from './browser.js';
import { exportingProvider } from './seed.js';

let dir: string;
let collector: Collector;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolscope-dash-contracts-'));
  collector = await startCollector({ db: join(dir, 'toolscope.db'), port: 0 });
  const stable = exportingProvider(collector.url, 'billing-stable');
  const providers = [stable, exportingProvider(collector.url, 'billing-canary')];
  // get_invoice v1 from a stable and a canary with different output enums: one silent change.
  for (const [i, provider] of providers.entries()) {
    const invoice = defineTool({
      name: 'get_invoice',
      version: '1',
      effect: 'read',
      description: 'One invoice',
      input: z.object({ invoiceId: z.string() }).strict(),
      output: z.object({ status: z.enum(i === 0 ? ['open', 'paid'] : ['open', 'paid', 'void']) }),
      tracerProvider: provider,
      hashKey: 'seed',
      execute: ({ invoiceId }) => {
        if (invoiceId === 'boom') throw new RangeError('ledger offline for bob@example.com');
        return { status: 'open' as const };
      },
    });
    await invoice.call({ invoiceId: `i-${i}` });
    if (i === 1) await invoice.call({ invoiceId: 'boom' });
  }
  const oldList = defineTool({
    name: 'invoice_list_v1',
    version: '1',
    effect: 'read',
    description: 'All invoices',
    input: z.object({}).strict(),
    output: z.object({ ids: z.array(z.string()) }),
    tracerProvider: stable,
    hashKey: 'seed',
    deprecated: { replacedBy: 'get_invoice', sunset: '2099-01-01' },
    execute: () => ({ ids: [] }),
  });
  await oldList.call({});
  for (const p of providers) await p.forceFlush();
  for (const p of providers) await p.shutdown();
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('contracts in the dashboard', () => {
  it('lists each contract of a tool and shows the diff between them', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/tools/get_invoice`);
    const table = w.page.getByRole('table', { name: 'contracts', exact: true });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    const text = await table.textContent();
    expect(text).toContain('billing-stable');
    expect(text).toContain('billing-canary');
    expect(await rows.first().locator('[data-field=weight]').textContent()).toMatch(
      /^\d+ tokens · \d+ B$/,
    );
    const diff = w.page.getByRole('table', { name: 'contract diff' });
    await diff.waitFor();
    const change = diff.locator('tbody tr');
    expect(await change.count()).toBe(1);
    expect(await change.first().textContent()).toBe('output.status.enumadded–"void"');
    await screenshot(w.page, 'contracts');
    // Swapping the two reads the change the other way round.
    const [from, to] = await w.page.locator('.diff-pick select').all();
    const hashes = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-hash')));
    await from?.selectOption(hashes[1] ?? '');
    await to?.selectOption(hashes[0] ?? '');
    await diff.locator('tbody tr', { hasText: 'removed' }).waitFor();
    expect(w.errors).toEqual([]);
  });

  it('shows what a failed call threw in its card', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/tools/get_invoice`);
    // The tool page says what its failures threw; the call card says what this call threw.
    expect(await w.page.locator('[data-field=exceptions]').textContent()).toBe('RangeError ×1');
    await w.page
      .getByRole('table', { name: 'calls' })
      .locator('a[href*="/traces/"]')
      .first()
      .click();
    // The span list's card (the story's copy of it is folded until its row opens).
    const thrown = w.page.locator('ol.timeline').getByTestId('exception').first();
    await thrown.waitFor();
    expect(await thrown.textContent()).toBe(
      'threw RangeError: ledger offline for [REDACTED:email]',
    );
  });

  it('puts a deprecation banner with the replacement and the sunset on the tool page', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/tools/invoice_list_v1`);
    const banner = w.page.getByTestId('deprecation');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(
      /^Deprecated — use get_invoice — sunset 2099-01-01 \(\d+ days left\)$/,
    );
  });

  it('lists the heaviest schemas on the overview as the API weighs them', async () => {
    const { tools, contracts } = (await (
      await fetch(`${collector.url}/api/tools`)
    ).json()) as ToolsResponse;
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/`);
    const list = w.page.getByRole('list', { name: 'heaviest schemas' });
    await list.waitFor();
    const expected = contracts.map((c) => c.name);
    expect([...expected].sort()).toEqual(['get_invoice', 'invoice_list_v1']);
    // Heaviest first, and each weight is the one the tool's own statistics carry.
    expect(contracts.map((c) => c.schemaTokens)).toEqual(
      [...contracts.map((c) => c.schemaTokens)].sort((a, b) => b - a),
    );
    for (const c of contracts)
      expect(tools.find((t) => t.name === c.name)?.schemaTokens).toBe(c.schemaTokens);
    expect(
      await list.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-tool'))),
    ).toEqual(expected);
  });
});
