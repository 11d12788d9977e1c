// Child processes for the end-to-end test: TypeScript entry points run with tsx and the workspace's source
// condition (the toolscope CLI as installed), output collected, a line waited for, and everything killed at the end.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { builtCli } from '../../packages/collector/test/built.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = import.meta.resolve('tsx');

export type Proc = {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `re` in stdout (or rejects when the process exits first). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<number>;
};

const running = new Set<ChildProcess>();

/** The CLI's entry, which `start` runs as installed (built.ts): a third of the CPU of a start under tsx. */
const CLI = 'packages/collector/src/cli/main.ts';

export function start(entry: string, args: string[], env: Record<string, string> = {}): Proc {
  const command =
    entry === CLI
      ? [...builtCli().slice(1), ...args]
      : ['--import', TSX, '--conditions=@toolscope/source', `${ROOT}${entry}`, ...args];
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
  return {
    child,
    output: () => out,
    exited,
    waitFor: (re, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          const m = re.exec(out);
          if (m) return resolve(m);
          if (child.exitCode !== null)
            return reject(new Error(`${entry} exited (${child.exitCode}) before ${re}:\n${out}`));
          if (Date.now() - started > timeoutMs)
            return reject(new Error(`${entry}: no ${re} within ${timeoutMs} ms:\n${out}`));
          setTimeout(tick, 50);
        };
        tick();
      }),
  };
}

export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 5_000).unref();
        }),
    ),
  );
}
