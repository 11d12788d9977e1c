// `toolscope fixtures`: from a trace, a flag or a tool's failing calls, one regression fixture file per tool and a
// test beside it that replays every recorded call against today's contract (docs/fixtures.md). Exit codes: 0
// written, 1 nothing to write (no such trace or flag, no calls), 2 usage, file or connection error.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXPECTATIONS, fixtureFileName, parseFixtures } from '@toolscope/instrument/fixtures';
import { z } from 'zod';
import { parseDurationMs } from '../api/params.js';
import type { FixtureSelection } from '../fixtures/read-fixtures.js';
import { selectionParams } from '../fixtures/selection-params.js';
import { type FixtureSource, fetchFixtures } from './fixtures-source.js';
import {
  RUNNERS,
  type ToolImport,
  testFileName,
  testFileText,
  toolImportOf,
} from './fixtures-test-file.js';
import type { CliIo } from './io.js';

export const FIXTURES_USAGE = `Usage: toolscope fixtures (--trace ID | --flag ID | --tool NAME) --out DIR [options]

Writes one regression fixture file per tool (<tool>.fixtures.json) and a test beside it (<tool>.fixtures.test.ts)
that replays each recorded call against today's contract of your tool.

Which calls:
  --trace ID             every tool call of this trace
  --flag ID              the calls a flag names (its id from GET /api/flags or the dashboard)
  --tool NAME            this tool's failing calls (with --trace or --flag: only this tool's)
  --code CODE            with --tool alone: calls that failed with CODE (OK: successful calls)
  --since AGE            window for --tool (default 24h) and for finding --flag (default 7d)
  --limit N              most calls with --tool (default 20, at most 500)

The test:
  --out DIR              where to write (created if missing; files of the same tools are replaced)
  --runner RUNNER        vitest (default) or node (node:test; run with a TypeScript loader such as tsx)
  --import SPEC          where the test imports your tool from: 'module#export', or 'tool=module#export' per tool
                         (repeatable). A relative module is read from here; default ./src/tools/<tool>.js#<camelName>
  --expect WHAT          recorded (default): a case passes while its recorded outcome still happens;
                         fixed: a case passes once its recorded failure no longer happens

Where from:
  --db PATH|URL          this SQLite file or postgres:// database (default: TOOLSCOPE_DB, else ./toolscope.db)
  --url URL              or a running collector; --token or TOOLSCOPE_TOKEN if it needs one
  -h, --help             show this help

Exit codes: 0 files written, 1 nothing to write, 2 usage, file or connection error.
`;

const DAY_MS = 86_400_000;
const identifier = /^[A-Za-z_$][\w$]*$/;
const importSpec = z.string().refine((s) => {
  const hash = s.lastIndexOf('#');
  return hash < 0 || hash === s.length - 1 || identifier.test(s.slice(hash + 1));
}, 'expected module#export, export a JavaScript name');

const flagsSchema = z
  .object({
    ...selectionParams,
    since: z
      .string()
      .refine((s) => parseDurationMs(s) !== undefined, 'expected a duration such as 24h, 30m or 7d')
      .optional(),
    out: z.string().min(1, 'is required'),
    runner: z.enum(RUNNERS).default('vitest'),
    import: z.array(importSpec).default([]),
    expect: z.enum(EXPECTATIONS).default('recorded'),
    url: z.url({ protocol: /^https?$/ }).optional(),
    db: z.string().min(1).optional(),
    token: z.string().optional(),
  })
  .refine((f) => !(f.trace && f.flag), {
    message: 'give --trace or --flag, not both',
    path: ['trace'],
  })
  .refine((f) => f.trace || f.flag || f.tool, {
    message: 'name the calls: --trace ID, --flag ID or --tool NAME',
    path: ['trace'],
  })
  .refine((f) => !f.code || (f.tool && !f.trace && !f.flag), {
    message: 'goes with --tool alone',
    path: ['code'],
  })
  .refine((f) => !(f.url && f.db), { message: 'give --url or --db, not both', path: ['url'] });
type Flags = z.output<typeof flagsSchema>;

function selectionOf(f: Flags): FixtureSelection {
  const untilNs = BigInt(Date.now()) * 1_000_000n;
  const back = (defaultMs: number) =>
    untilNs - BigInt(f.since ? (parseDurationMs(f.since) ?? defaultMs) : defaultMs) * 1_000_000n;
  if (f.trace) return { kind: 'trace', traceId: f.trace, tool: f.tool };
  if (f.flag)
    return { kind: 'flag', flagId: f.flag, sinceNs: back(7 * DAY_MS), untilNs, tool: f.tool };
  return {
    kind: 'calls',
    tool: f.tool as string,
    code: f.code,
    sinceNs: back(DAY_MS),
    untilNs,
    limit: f.limit,
  };
}

/**
 * The import of `tool`'s test: its own `tool=` spec, else the spec for every tool (whose `#export` names the tool
 * only when one tool was written; with several, each is looked for under its own name), else the default.
 */
function importFor(f: Flags, tool: string, cwd: string, tools: number): ToolImport {
  const own = f.import.find((s) => s.startsWith(`${tool}=`));
  if (own) return toolImportOf(own.slice(tool.length + 1), tool, cwd, f.out);
  const shared = f.import.find((s) => !/^[^#/.]+=/.test(s));
  if (!shared) return toolImportOf(`./src/tools/${tool}.js`, tool, cwd, f.out);
  const module = tools > 1 ? shared.replace(/#[^#]*$/, '') : shared;
  return toolImportOf(module, tool, cwd, f.out);
}

function originOf(f: Flags): string {
  if (f.trace) return `trace ${f.trace}`;
  if (f.flag) return `flag ${f.flag}`;
  return `the ${f.code ? `${f.code} ` : 'failing '}calls of ${f.tool} in the last ${f.since ?? '24h'}`;
}

export async function fixtures(argv: string[], io: CliIo): Promise<number> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        trace: { type: 'string' },
        flag: { type: 'string' },
        tool: { type: 'string' },
        code: { type: 'string' },
        since: { type: 'string' },
        limit: { type: 'string' },
        out: { type: 'string' },
        runner: { type: 'string' },
        import: { type: 'string', multiple: true },
        expect: { type: 'string' },
        url: { type: 'string' },
        db: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    io.err(
      `toolscope fixtures: ${error instanceof Error ? error.message : 'invalid arguments'}\n\n${FIXTURES_USAGE}`,
    );
    return 2;
  }
  if (values.help) {
    io.out(FIXTURES_USAGE);
    return 0;
  }
  const parsed = flagsSchema.safeParse({
    ...values,
    out: values.out ?? '',
    token: values.token ?? io.env.TOOLSCOPE_TOKEN,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    io.err(`toolscope fixtures: --${issue?.path.join('.') || 'options'}: ${issue?.message}\n`);
    return 2;
  }
  const f = parsed.data;
  const source: FixtureSource = f.url
    ? { url: f.url, token: f.token || undefined }
    : { db: f.db ?? (io.env.TOOLSCOPE_DB || './toolscope.db') };
  const got = await fetchFixtures(source, selectionOf(f));
  if (!got.ok) {
    io.err(`toolscope fixtures: ${got.message}\n`);
    return got.exit;
  }
  const cwd = process.cwd();
  try {
    mkdirSync(f.out, { recursive: true });
    for (const file of got.files) {
      const name = fixtureFileName(file.tool);
      const imported = importFor(f, file.tool, cwd, got.files.length);
      const cases = parseFixtures(file.text, name).cases;
      writeFileSync(join(f.out, name), file.text);
      writeFileSync(
        join(f.out, testFileName(name)),
        testFileText({
          tool: file.tool,
          fixtureFile: name,
          import: imported,
          expect: f.expect,
          runner: f.runner,
          origin: originOf(f),
        }),
      );
      const failed = cases.filter((c) => !c.expected.ok).length;
      const synthesized = cases.filter((c) => c.input?.synthesized).length;
      io.out(
        `${join(f.out, name)}: ${cases.length} case${cases.length === 1 ? '' : 's'} (${failed} failed, ${synthesized} with a synthesized input); ${testFileName(name)} (${f.runner}) imports ${imported.name} from ${imported.module}\n`,
      );
    }
  } catch (error) {
    io.err(
      `toolscope fixtures: cannot write into ${f.out}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
  return 0;
}
