// The service name of a server that never names itself (no `serverInfo` before its spans end): read from what
// the proxy was told to run or to front, so the collector's service list shows something a person recognises.

// Programs that run the server rather than being it: the server is named by their first operand.
const LAUNCHERS = new Set([
  'node',
  'nodejs',
  'npx',
  'npm',
  'pnpm',
  'pnpx',
  'yarn',
  'bun',
  'bunx',
  'deno',
  'uv',
  'uvx',
  'python',
  'python3',
  'pipx',
  'docker',
  'podman',
  'go',
  'java',
  'dotnet',
]);
// Subcommands of those launchers that come before the server's name.
const SUBCOMMANDS = new Set(['run', 'exec', 'dlx', 'x', 'tool', 'start']);

const basename = (p: string) => p.replace(/\/+$/, '').split(/[\\/]/).pop() ?? p;

/**
 * A service name for a stdio server that never names itself, from its command line: the package or script a
 * launcher runs (`npx -y @scope/server-x@1 /dir` → `@scope/server-x`, `uv run weather.py` → `weather.py`), else
 * the command's own file name.
 */
export function serviceOfCommand(command: string, args: readonly string[]): string {
  const program = basename(command).replace(/\.(exe|cmd)$/i, '');
  if (!LAUNCHERS.has(program.toLowerCase()) && !/^python\d/.test(program)) return program;
  for (const arg of args) {
    if (arg.startsWith('-') || SUBCOMMANDS.has(arg)) continue;
    // An npm spec keeps its scope and loses its version; a path keeps its file name.
    if (arg.startsWith('@')) return arg.replace(/^(@[^/]+\/[^@]+)@.*$/, '$1');
    if (!arg.includes('/') && !arg.includes('\\')) return arg.replace(/@[^@]*$/, '') || arg;
    return basename(arg);
  }
  return program;
}

/** A service name for an HTTP upstream that never names itself: its host and path (no user or query). */
export function serviceOfUrl(upstream: string): string {
  const u = new URL(upstream);
  return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}
