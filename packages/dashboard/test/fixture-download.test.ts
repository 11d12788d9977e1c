// "Download as regression fixture" in real Chromium: on a trace page and on a flag, the file the browser saves is
// byte for byte the one `toolscope fixtures` writes for the same trace or flag.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, runCli, startCollector } from '@toolscope/collector';
import type { FlagsResponse } from '@toolscope/collector/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, watchedPage } from './browser.js';
import { type Seeded, seed } from './seed.js';

let dir: string;
let collector: Collector;
let browser: Browser;
let seeded: Seeded;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolscope-download-'));
  collector = await startCollector({ db: join(dir, 'toolscope.db'), port: 0 });
  seeded = await seed(collector.url);
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What `toolscope fixtures` writes for these arguments, read back. */
async function cliFile(args: string[], out: string): Promise<string> {
  const io = { out: () => {}, err: (t: string) => expect.fail(t), env: {}, onSignal: () => {} };
  expect(
    await runCli(['fixtures', ...args, '--db', join(dir, 'toolscope.db'), '--out', out], io),
  ).toBe(0);
  return readFileSync(join(out, 'get_order.fixtures.json'), 'utf8');
}

/** Clicks `button` and returns the saved file's name and text. */
async function saved(page: Page, click: () => Promise<void>): Promise<[string, string]> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = join(dir, `saved-${Date.now()}.json`);
  await download.saveAs(path);
  return [download.suggestedFilename(), readFileSync(path, 'utf8')];
}

describe('Download as regression fixture', () => {
  it('saves from the trace page the file the CLI writes for the trace', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/traces/${seeded.storyTraceId}`);
    const button = w.page.getByRole('button', { name: 'Download as regression fixture' });
    const [name, text] = await saved(w.page, () => button.click());
    expect(name).toBe('get_order.fixtures.json');
    expect(text).toBe(await cliFile(['--trace', seeded.storyTraceId], join(dir, 'trace')));
    expect(JSON.parse(text).cases).toHaveLength(3);
    expect(w.errors).toEqual([]);
    await w.page.close();
  });

  it('saves from a flag the file the CLI writes for the flag', async () => {
    const { flags } = (await (await fetch(`${collector.url}/api/flags`)).json()) as FlagsResponse;
    const flag = flags.find(
      (f) => f.kind === 'identical_retry' && f.traceId === seeded.storyTraceId,
    );
    expect(flag?.id).toMatch(/^[0-9a-f]{16}$/);
    const hostile = flags.find((f) => f.kind === 'identical_retry' && f.tool !== 'get_order');
    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/flags`);
    const button = (id = '') => w.page.locator(`[data-flag="${id}"] button`);
    const [name, text] = await saved(w.page, () => button(flag?.id).click());
    expect(name).toBe('get_order.fixtures.json');
    expect(text).toBe(await cliFile(['--flag', flag?.id ?? ''], join(dir, 'flag')));
    expect(JSON.parse(text).from).toEqual({ flag: flag?.id });
    // The hostile tool's loop: its file name made safe, and nothing of it ran.
    const [hostileName] = await saved(w.page, () => button(hostile?.id).click());
    expect(hostileName).toMatch(/^[A-Za-z0-9_.-]+\.fixtures\.json$/);
    expect(await w.pwned()).toBeUndefined();
    expect(w.errors).toEqual([]);
    await w.page.close();
  });
});
