// The test file `toolscope fixtures` writes beside each fixture file: short and readable, it imports the team's
// own tool and judges every recorded case against today's contract with @toolscope/instrument/fixtures, for
// vitest or node:test.
import { isAbsolute, relative, resolve } from 'node:path';
import type { Expectation } from '@toolscope/instrument/fixtures';

export const RUNNERS = ['vitest', 'node'] as const;
export type Runner = (typeof RUNNERS)[number];

/** Where the test imports the tool from: a module specifier as written in the test, and the export's name. */
export type ToolImport = { module: string; name: string };

/** `get_order` → `getOrder`: the export a tool is looked for under when `--import` names none. */
export function exportNameOf(tool: string): string {
  const words = tool.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words
    .map((w, i) =>
      i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1),
    )
    .join('');
  return /^[A-Za-z_$][\w$]*$/.test(camel) ? camel : 'tool';
}

/**
 * The import of `--import module#export` for a test in `outDir`: a relative module (`./src/tools/orders.js`) is
 * read from the current directory and rewritten relative to the test; a package name stays as it is.
 */
export function toolImportOf(spec: string, tool: string, cwd: string, outDir: string): ToolImport {
  const hash = spec.lastIndexOf('#');
  const module = hash < 0 ? spec : spec.slice(0, hash);
  const name = hash < 0 || hash === spec.length - 1 ? exportNameOf(tool) : spec.slice(hash + 1);
  if (!module.startsWith('.') && !isAbsolute(module)) return { module, name };
  let rel = relative(resolve(outDir), resolve(cwd, module)).split('\\').join('/');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return { module: rel, name };
}

/** The test file for one tool's fixture file `fixtureFile` (its name, beside the test). */
export function testFileText(o: {
  tool: string;
  fixtureFile: string;
  import: ToolImport;
  expect: Expectation;
  runner: Runner;
  /** What the fixtures were made from, for the header (`trace 4bf9…`). */
  origin: string;
}): string {
  const { name, module } = o.import;
  // Names come from recorded data: string literals through JSON, comments without any line break.
  const q = (s: string) => (/^[^'\\\r\n\u2028\u2029]*$/.test(s) ? `'${s}'` : JSON.stringify(s));
  const said = (s: string) => s.replace(/[\r\n\u2028\u2029]/g, ' ');
  const header = [
    `// Regression fixtures of ${said(o.tool)}, written by \`toolscope fixtures\` from ${said(o.origin)}.`,
    `// Each case replays a recorded call against today's contract (input schema, recorded output, executor only`,
    `// where a case says "execute": true); --expect ${o.expect}: ${o.expect === 'recorded' ? 'a case passes while its recorded outcome still happens' : 'a case passes once its recorded failure no longer happens'}.`,
  ];
  const judge = `judgeCase(${name}, c, { expect: '${o.expect}' })`;
  const title = q(`${o.tool}: recorded calls against today's contract`);
  const load = `const fixtures = loadFixtures(new URL(${q(`./${o.fixtureFile}`)}, import.meta.url));`;
  // What differs between the runners: their imports, and how a case is declared, skipped and asserted.
  const r =
    o.runner === 'node'
      ? {
          imports: [
            `import assert from 'node:assert/strict';`,
            `import { describe, test } from 'node:test';`,
            `import { judgeCase, loadFixtures } from '@toolscope/instrument/fixtures';`,
          ],
          open: '    test(c.title, async (t) => {',
          skip: `      if (v.status === 'skip') return t.skip(v.message);`,
          check: `      assert.equal(v.status, 'pass', v.message);`,
        }
      : {
          imports: [
            `import { judgeCase, loadFixtures } from '@toolscope/instrument/fixtures';`,
            `import { describe, expect, it } from 'vitest';`,
          ],
          open: '    it(c.title, async (ctx) => {',
          skip: `      if (v.status === 'skip') ctx.skip(v.message);`,
          check: `      expect(v.status, v.message).toBe('pass');`,
        };
  return `${[
    ...header,
    ...r.imports,
    `import { ${name} } from ${q(module)};`,
    '',
    load,
    '',
    `describe(${title}, () => {`,
    '  for (const c of fixtures.cases) {',
    r.open,
    `      const v = await ${judge};`,
    r.skip,
    r.check,
    '    });',
    '  }',
    '});',
  ].join('\n')}\n`;
}

/** The name of a test file beside `fixtureFile` (`get_order.fixtures.json` → `get_order.fixtures.test.ts`). */
export const testFileName = (fixtureFile: string) => fixtureFile.replace(/\.json$/, '.test.ts');
