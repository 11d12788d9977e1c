// The `toolscope` command line: dispatches to the subcommands and turns their result into the exit code. Each
// subcommand is loaded when it is asked for: `serve` brings the storage and the HTTP server, which `report`
// and `proxy` do not need (`toolscope proxy` sits beside every MCP server a user runs, so what it loads is
// memory taken from each).
import { COLLECTOR_VERSION } from '../version.js';
import { type CliIo, processIo } from './io.js';

export const USAGE = `Usage: toolscope <command> [options]

Commands:
  serve      run the collector: OTLP/HTTP ingest, SQLite storage, JSON API
  report     print per-tool error rates and flags for CI (markdown, json, junit) with thresholds
  ci         run a command against a temporary collector, then report
  proxy      trace an MCP server without touching its code (stdio: -- <command>; HTTP: --upstream URL --port N)
  fixtures   write regression fixtures and a test from a trace, a flag or a tool's failing calls
  replay     replay fixtures against a live MCP server (stdio or Streamable HTTP) and report what changed

Run "toolscope <command> --help" for the options of a command.
`;

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).serve(rest, io);
    case 'report':
      return (await import('./report.js')).report(rest, io);
    case 'ci':
      return (await import('./ci.js')).ci(rest, io);
    case 'fixtures':
      return (await import('./fixtures.js')).fixtures(rest, io);
    case 'replay':
      return (await import('./replay.js')).replay(rest, io);
    case 'proxy': {
      // The proxy is a package of its own (no native dependency, so `npx @toolscope/proxy` compiles nothing).
      // Its heap settings come before its modules load, as its own bin sets them: V8 grows the young generation
      // while modules load.
      (await import('@toolscope/proxy/heap-flags')).limitHeapGrowth();
      const proxy = await import('@toolscope/proxy');
      return proxy.main(rest);
    }
    case '--version':
    case '-v':
      io.out(`${COLLECTOR_VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.out(USAGE);
      return command === undefined ? 2 : 0;
    default:
      io.err(`toolscope: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

// Run when executed directly (bin/toolscope.js or `pnpm toolscope`), not when imported by tests.
const entry = process.argv[1] ?? '';
if (entry.endsWith('/cli/main.ts') || entry.endsWith('/cli/main.js')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `toolscope: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
