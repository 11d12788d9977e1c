// `toolscope report`: per-tool calls, error rate, p95, codes and flags for CI, with thresholds that set the
// exit code (0 within, 1 crossed, 2 usage or connection error).
import { appendFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseDurationMs } from '../api/params.js';
import { FLAG_KINDS } from '../detectors/flag.js';
import type { CliIo } from './io.js';
import { loadReport, type Source } from './report-data.js';
import { json, junit, markdown, type Verdict } from './report-format.js';

export const REPORT_USAGE = `Usage: toolscope report [options]

Prints per-tool calls, error rate, p95, error codes and flags, and fails when a threshold is crossed.

Options:
  --db PATH|URL          read this SQLite file or postgres:// database (default: TOOLSCOPE_DB, else
                         ./toolscope.db)
  --url URL              or ask a running collector (its JSON API); --token or TOOLSCOPE_TOKEN if it needs one
  --since AGE            window, e.g. 24h, 30m, 7d (default 24h)
  --format FORMAT        markdown (default), json or junit
  --output FILE          write the report to FILE instead of stdout
  --max-error-rate R     fail when a tool's error rate is over R (0..1, e.g. 0.05)
  --tool NAME            report only this tool (repeatable)
  --fail-on KIND         fail when a flag of this kind is present (repeatable): ${FLAG_KINDS.join(', ')}
  -h, --help             show this help

Exit codes: 0 within thresholds, 1 a threshold crossed or a --fail-on flag present, 2 usage or connection error.
Markdown is also appended to $GITHUB_STEP_SUMMARY when that is set.
`;

export const REPORT_OPTIONS = {
  db: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  since: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  'max-error-rate': { type: 'string' },
  tool: { type: 'string', multiple: true },
  'fail-on': { type: 'string', multiple: true },
} as const;

export const reportFlagsSchema = z
  .object({
    db: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    token: z.string().min(1).optional(),
    since: z
      .string()
      .default('24h')
      .transform((v, ctx) => {
        const ms = parseDurationMs(v);
        if (ms === undefined || ms <= 0) {
          ctx.addIssue({ code: 'custom', message: 'expected a duration such as 24h, 30m or 7d' });
          return z.NEVER;
        }
        return { ms, label: v };
      }),
    format: z.enum(['markdown', 'json', 'junit']).default('markdown'),
    output: z.string().min(1).optional(),
    'max-error-rate': z.coerce.number().min(0).max(1).optional(),
    tool: z.array(z.string().min(1)).default([]),
    'fail-on': z.array(z.enum(FLAG_KINDS)).default([]),
  })
  .refine((f) => !(f.db && f.url), { message: 'use --db or --url, not both', path: ['db'] });
export type ReportFlags = z.output<typeof reportFlagsSchema>;

/** Parses report flags out of `values`; a usage error names the flag. */
export function parseReportFlags(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { ok: true; flags: ReportFlags } | { ok: false; message: string } {
  const parsed = reportFlagsSchema.safeParse({
    ...values,
    token: values.token ?? (env.TOOLSCOPE_TOKEN || undefined),
  });
  if (parsed.success) return { ok: true, flags: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    message: `--${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
  };
}

/** Renders the report of `source` and returns the exit code. */
export async function runReport(flags: ReportFlags, source: Source, io: CliIo): Promise<number> {
  const loaded = await loadReport(source, flags.since.ms);
  if (!loaded.ok) {
    io.err(`toolscope report: ${loaded.message}\n`);
    return 2;
  }
  const only = new Set(flags.tool);
  const tools = only.size ? loaded.data.tools.filter((t) => only.has(t.name)) : loaded.data.tools;
  const allFlags = only.size
    ? loaded.data.flags.filter((f) => only.has(f.tool))
    : loaded.data.flags;
  const max = flags['max-error-rate'];
  const overThreshold = max === undefined ? [] : tools.filter((t) => t.errorRate > max);
  const failOn = flags['fail-on'];
  const failingFlags = allFlags.filter((f) => (failOn as string[]).includes(f.kind));
  const verdict: Verdict = {
    tools,
    servers: loaded.data.servers,
    contracts: loaded.data.contracts,
    flags: allFlags,
    maxErrorRate: max,
    failOn,
    overThreshold,
    failingFlags,
    passed: overThreshold.length === 0 && failingFlags.length === 0,
  };
  const md = markdown(verdict, flags.since.label);
  const rendered =
    flags.format === 'json' ? json(verdict) : flags.format === 'junit' ? junit(verdict) : md;
  if (flags.output) {
    try {
      writeFileSync(flags.output, rendered);
    } catch (error) {
      io.err(
        `toolscope report: cannot write ${flags.output}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return 2;
    }
  } else io.out(rendered);
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) {
    try {
      appendFileSync(summary, md);
    } catch (error) {
      io.err(
        `toolscope report: cannot append to GITHUB_STEP_SUMMARY: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
  return verdict.passed ? 0 : 1;
}

export async function report(argv: string[], io: CliIo): Promise<number> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { ...REPORT_OPTIONS, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    io.err(
      `toolscope report: ${error instanceof Error ? error.message : 'invalid arguments'}\n\n${REPORT_USAGE}`,
    );
    return 2;
  }
  if (values.help) {
    io.out(REPORT_USAGE);
    return 0;
  }
  const { help: _help, ...rest } = values;
  const parsed = parseReportFlags(rest, io.env);
  if (!parsed.ok) {
    io.err(`toolscope report: ${parsed.message}\n`);
    return 2;
  }
  const f = parsed.flags;
  const source: Source = f.url
    ? { url: f.url, token: f.token }
    : { db: f.db ?? (io.env.TOOLSCOPE_DB || './toolscope.db') };
  return runReport(f, source, io);
}
