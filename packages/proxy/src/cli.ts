// `toolscope-proxy`: parses the command line, runs the stdio or the HTTP proxy, and returns the exit code (the
// child's own in stdio mode; 2 for a usage error). Spans are flushed within a bounded time before it returns.
import { limitHeapGrowth } from './heap-flags.js';
import { createLogger } from './log.js';
import { parseProxyArgs, USAGE } from './options.js';
import { createRun } from './session.js';
import { runStdioProxy } from './stdio.js';

/** How long the last spans may take to reach the collector when the proxy stops. */
export const FLUSH_TIMEOUT_MS = 3000;

/** Runs the proxy with `argv` (the arguments after the program name); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseProxyArgs(argv);
  if (!parsed.ok) {
    if (parsed.help) {
      process.stderr.write(USAGE);
      return 0;
    }
    process.stderr.write(`toolscope-proxy: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  const options = parsed.options;
  const log = createLogger(options.logLevel);
  // The bin has set these before loading anything; `toolscope proxy` and other callers get them from here.
  const heap = limitHeapGrowth();
  log.log('debug', 'V8 heap flags', { ...heap });
  const run = createRun(options, log);
  const flush = async () => {
    // Calls still waiting for a leg or a poll end as parts of their call, and go out with the rest.
    run.calls.endAll();
    await run.telemetry.shutdown(FLUSH_TIMEOUT_MS);
    log.log('info', 'spans flushed', { ...run.telemetry.stats() });
  };
  if (options.mode === 'stdio') {
    const observer = run.observe('pipe');
    const code = await runStdioProxy({
      command: options.command,
      args: options.args,
      observer,
      log,
      enforceOutput: options.enforceOutput,
      drainTimeoutMs: options.drainTimeoutMs,
      exitGraceMs: options.exitGraceMs,
      finish: flush,
    });
    const memory = process.memoryUsage();
    log.log('info', 'session traffic', {
      ...observer.counts,
      rssMb: Math.round(memory.rss / 1048576),
      heapUsedMb: Math.round(memory.heapUsed / 1048576),
    });
    return code;
  }
  const { runHttpProxy } = await import('./http.js');
  return runHttpProxy({ options, run, log, finish: flush });
}

// Run when executed directly (bin/toolscope-proxy.js runs the built file), not when imported.
const entry = process.argv[1] ?? '';
if (entry.endsWith('/proxy/src/cli.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `${JSON.stringify({ level: 'error', name: 'toolscope-proxy', msg: 'failed', cause: error instanceof Error ? error.message : String(error) })}\n`,
      );
      process.exit(1);
    },
  );
}
