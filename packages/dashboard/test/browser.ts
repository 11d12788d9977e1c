// Real Chromium (Debian's package) driven by playwright-core: pages record CSP violations, dialogs and
// uncaught errors so tests can prove that nothing from the data ran as script.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.TOOLSCOPE_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Where these tests' screenshots go, with TOOLSCOPE_SCREENSHOTS=1: always the ignored folder. They show
 * fixtures (a hostile tool name among them), so the docs' pictures come from the demo instead
 * (test/e2e/whole-path.test.ts, `pnpm screenshots`). Without it none are taken: they assert nothing, and a
 * full-page PNG costs a few hundred ms of a loaded machine's suite.
 */
export const SCREENSHOTS = fileURLToPath(new URL('../../../.screenshots/', import.meta.url));

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export type Watched = {
  page: Page;
  dialogs: string[];
  errors: string[];
  /** CSP violations reported by the page. */
  violations(): Promise<string[]>;
  /** Whatever a payload would have set had it run. */
  pwned(): Promise<unknown>;
};

export async function watchedPage(browser: Browser): Promise<Watched> {
  const page = await browser.newPage({
    viewport: { width: 1360, height: 900 },
    timezoneId: 'Europe/Berlin',
  });
  // Fail with playwright's own message (which locator) well before the test's timeout.
  page.setDefaultTimeout(8_000);
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return {
    page,
    dialogs,
    errors,
    violations: () =>
      page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
    pwned: () => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned),
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.TOOLSCOPE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
