// `toolscope report`: per-tool calls, error rate, p95, codes and flags for CI, and with --baseline what changed
// against an earlier report; thresholds set the exit code (0 within, 1 crossed, 2 usage, file or connection
// error).
import { appendFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FLAG_KINDS } from '../detectors/flag.js';
import { type Baseline, clientMismatch, readBaseline } from './baseline.js';
import type { CliIo } from './io.js';
import { junit } from './junit.js';
import { openReader, type ReportReader, type Source } from './report-data.js';
import { compare, onlyTools } from './report-delta.js';
import { clientOf, parseReportFlags, REPORT_OPTIONS, type ReportFlags } from './report-flags.js';
import { json, markdown, type Verdict } from './report-format.js';
import { recoveryOfTools } from './report-recovery.js';
import { sarif } from './sarif.js';
import { breachesOf, type DeltaLimits } from './thresholds.js';

export const REPORT_USAGE = `Usage: toolscope report [options]

Prints per-tool calls, error rate, p95, error codes and flags, and fails when a threshold is crossed.

Options:
  --db PATH|URL          read this SQLite file or postgres:// database (default: TOOLSCOPE_DB, else
                         ./toolscope.db)
  --url URL              or ask a running collector (its JSON API); --token or TOOLSCOPE_TOKEN if it needs one
  --since AGE            window, e.g. 24h, 30m, 7d (default 24h)
  --format FORMAT        markdown (default), json, junit or sarif (SARIF 2.1.0, for code scanning)
  --output FILE          write the report to FILE instead of stdout
  --max-error-rate R     fail when a tool's error rate is over R (0..1, e.g. 0.05)
  --tool NAME            report only this tool (repeatable)
  --fail-on KIND         fail when a flag of this kind is present (repeatable): ${FLAG_KINDS.join(', ')}
  --client NAME          count the tools over this MCP client's calls only (clientInfo.name); flags,
                         contracts and recovery stay the deployment's
  --client-version V     and over this version of it (needs --client)

Against a baseline (an earlier --format json report; input hashes match across runs only with one
TOOLSCOPE_HASH_KEY):
  --baseline FILE                    show what changed against FILE: per tool, codes, contracts, new flags
  --max-error-rate-increase R        fail when a tool's error rate rose by more than R (absolute, e.g. 0.02)
  --max-p95-increase R               fail when a tool's p95 rose by more than R (relative, e.g. 0.5)
  --max-result-tokens-increase R     fail when a tool's result tokens p95 rose by more than R (relative)
  --fail-on-new KIND                 fail when a flag of this kind is new against the baseline (repeatable,
                                     or comma-separated)
  --fail-on-contract-change          fail when a tool's contract (schema hash) changed
  -h, --help             show this help

Exit codes: 0 within thresholds, 1 a threshold crossed or a --fail-on flag present, 2 usage, file or
connection error. Markdown is also appended to $GITHUB_STEP_SUMMARY when that is set.
`;

/** The limits on change that the flags set, or null without a baseline. */
function limitsOf(flags: ReportFlags): DeltaLimits | null {
  if (!flags.baseline) return null;
  return {
    maxErrorRateIncrease: flags['max-error-rate-increase'],
    maxP95Increase: flags['max-p95-increase'],
    maxResultTokensIncrease: flags['max-result-tokens-increase'],
    failOnNew: flags['fail-on-new'],
    failOnContractChange: flags['fail-on-contract-change'],
  };
}

/** Reads this run, compares it with the baseline and decides every threshold. */
async function decide(
  flags: ReportFlags,
  reader: ReportReader,
  baseline: Baseline | undefined,
): Promise<Verdict> {
  const client = clientOf(flags);
  const data = await reader.load(flags.since.ms, client);
  const only = new Set(flags.tool);
  const keep = (name: string) => only.size === 0 || only.has(name);
  const tools = data.tools.filter((t) => keep(t.name));
  const allFlags = data.flags.filter((f) => keep(f.tool));
  const max = flags['max-error-rate'];
  const overThreshold = max === undefined ? [] : tools.filter((t) => t.errorRate > max);
  const failOn: string[] = flags['fail-on'];
  const failingFlags = allFlags.filter((f) => failOn.includes(f.kind));
  const limits = limitsOf(flags);
  const delta = baseline
    ? await compare(
        onlyTools(baseline, only),
        { ...data, tools, flags: allFlags, contracts: data.contracts.filter((c) => keep(c.name)) },
        (tool, from, to) => reader.contractDiff(tool, from, to),
      )
    : null;
  const breaches = delta && limits ? breachesOf(delta, limits) : [];
  return {
    client: client ?? null,
    tools,
    servers: data.servers,
    contracts: data.contracts,
    contractSchemas: data.contractSchemas,
    recovery: recoveryOfTools(data.recovery, keep),
    flags: allFlags,
    maxErrorRate: max,
    failOn,
    overThreshold,
    failingFlags,
    delta,
    limits,
    breaches,
    passed: overThreshold.length === 0 && failingFlags.length === 0 && breaches.length === 0,
  };
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Renders the report of `source` (against the baseline of `--baseline`, read here unless the caller read it
 * already) and returns the exit code.
 */
export async function runReport(
  flags: ReportFlags,
  source: Source,
  io: CliIo,
  preread?: Baseline,
): Promise<number> {
  let baseline = preread;
  if (flags.baseline && !baseline) {
    const read = readBaseline(flags.baseline);
    if (!read.ok) {
      io.err(`toolscope report: ${read.message}\n`);
      return 2;
    }
    baseline = read.baseline;
  }
  // A report of one client's calls compares with a report of the same calls only (`ci` checked already).
  const mismatch = baseline && clientMismatch(baseline, clientOf(flags) ?? null);
  if (mismatch) {
    io.err(`toolscope report: ${mismatch}\n`);
    return 2;
  }
  const opened = await openReader(source);
  if (!opened.ok) {
    io.err(`toolscope report: ${opened.message}\n`);
    return 2;
  }
  let verdict: Verdict;
  try {
    verdict = await decide(flags, opened.reader, baseline);
  } catch (error) {
    io.err(`toolscope report: ${message(error)}\n`);
    return 2;
  } finally {
    await opened.reader.close();
  }
  const md = markdown(verdict, flags.since.label);
  const rendered =
    flags.format === 'json'
      ? json(verdict)
      : flags.format === 'junit'
        ? junit(verdict)
        : flags.format === 'sarif'
          ? sarif(verdict, io.env)
          : md;
  if (flags.output) {
    try {
      writeFileSync(flags.output, rendered);
    } catch (error) {
      io.err(`toolscope report: cannot write ${flags.output}: ${message(error)}\n`);
      return 2;
    }
  } else io.out(rendered);
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) {
    try {
      appendFileSync(summary, md);
    } catch (error) {
      io.err(`toolscope report: cannot append to GITHUB_STEP_SUMMARY: ${message(error)}\n`);
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
