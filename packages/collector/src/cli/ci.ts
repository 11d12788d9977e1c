// `toolscope ci [report options] -- <command …>`: an embedded collector on a free loopback port with a
// temporary database, the command run with OTEL_EXPORTER_OTLP_* pointing at it, then the report.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCollector } from '../collector.js';
import { type Baseline, clientMismatch, readBaseline } from './baseline.js';
import type { CliIo } from './io.js';
import { runReport } from './report.js';
import { clientOf, parseReportFlags, REPORT_OPTIONS } from './report-flags.js';

export const CI_USAGE = `Usage: toolscope ci [--db PATH|URL] [report options] -- <command> [args…]

Starts a collector on a free loopback port with a temporary database, runs the command with
OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_PROTOCOL set for it, waits for it to finish and for its
last export to be stored, then prints the report (see "toolscope report --help" for the options). The
command's own output goes to stderr, so stdout (or --output FILE) holds only the report.

  --db PATH|URL   store the run there and keep it (for more "toolscope report --db PATH" renderings, e.g.
                  SARIF and JUnit of the same run) instead of in a temporary database
  --baseline FILE is read before the command runs: a missing or unreadable baseline exits 2 at once.

Exit code: the command's own non-zero exit code if it failed, else the report's (0, 1, or 2).
`;

export async function ci(argv: string[], io: CliIo): Promise<number> {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  let values: Record<string, unknown>;
  try {
    const { url: _url, ...options } = REPORT_OPTIONS;
    ({ values } = parseArgs({
      args: own,
      strict: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    io.err(
      `toolscope ci: ${error instanceof Error ? error.message : 'invalid arguments'}\n\n${CI_USAGE}`,
    );
    return 2;
  }
  if (values.help) {
    io.out(CI_USAGE);
    return 0;
  }
  const [program, ...args] = command;
  if (!program) {
    io.err(`toolscope ci: give the command to run after --\n\n${CI_USAGE}`);
    return 2;
  }
  const { help: _help, ...rest } = values;
  const parsed = parseReportFlags(rest, io.env);
  if (!parsed.ok) {
    io.err(`toolscope ci: ${parsed.message}\n`);
    return 2;
  }
  let baseline: Baseline | undefined;
  if (parsed.flags.baseline) {
    const read = readBaseline(parsed.flags.baseline);
    if (!read.ok) {
      io.err(`toolscope ci: ${read.message}\n`);
      return 2;
    }
    baseline = read.baseline;
    // Before the command runs: a baseline of other calls could never be compared.
    const mismatch = clientMismatch(baseline, clientOf(parsed.flags) ?? null);
    if (mismatch) {
      io.err(`toolscope ci: ${mismatch}\n`);
      return 2;
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'toolscope-ci-'));
  const db = parsed.flags.db ?? join(dir, 'ci.db');
  const collector = await startCollector({ db, host: '127.0.0.1', port: 0 });
  try {
    io.err(`toolscope ci: collector on ${collector.url}; running ${program}\n`);
    const exit = await new Promise<{ code: number | null; error?: string }>((resolve) => {
      const child = spawn(program, args, {
        // The command's stdout joins stderr: `--format junit > junit.xml` must be the report alone.
        stdio: ['inherit', 'pipe', 'pipe'],
        env: {
          ...io.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
        },
      });
      child.stdout?.on('data', (d: Buffer) => io.err(d.toString()));
      child.stderr?.on('data', (d: Buffer) => io.err(d.toString()));
      child.on('error', (error) => resolve({ code: null, error: error.message }));
      // 'close', not 'exit': the command's output is all forwarded by then.
      child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1) }));
    });
    if (exit.error) {
      io.err(`toolscope ci: cannot run ${program}: ${exit.error}\n`);
      return 2;
    }
    // The command flushed its exporter before exiting; wait until what it sent is committed.
    await collector.queue.close();
    const code = await runReport(parsed.flags, { storage: collector.storage }, io, baseline);
    if (exit.code !== 0) {
      io.err(`toolscope ci: ${program} exited with code ${exit.code}\n`);
      return exit.code ?? 1;
    }
    return code;
  } finally {
    await collector.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
