// The README's commands on one fresh copy of the repository, in the order a newcomer runs them: the install line
// and `pnpm start` (quick-start.ts), then "Use it in your project" and the Dockerfile's deploy (pack-install.ts).
// One copy for both: in copies of their own, each built the dashboard and the three packages from nothing, and
// `pnpm build` then rebuilt in the second what `pnpm start` had built in the first (docs/decisions/0062).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { packInstallTests } from './pack-install.js';
import { installAsReadme, type QuickStartClone, quickStartTests } from './quick-start.js';
import { removeLater } from './readme.js';

const work = mkdtempSync(join(tmpdir(), 'toolscope-readme-'));
let installed: QuickStartClone | undefined;
// The README's install line, as written; a failure fails every test below, each of which needs it.
beforeAll(() => {
  installed = installAsReadme(work);
}, 300_000);
afterAll(() => removeLater(work));

quickStartTests(() => {
  if (!installed) throw new Error('the README install did not run');
  return installed;
});
packInstallTests(work);
