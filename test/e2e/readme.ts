// The README read as a test reads it: a section by its heading, the fenced blocks in it, the command lines of a
// block, and a copy of the repository as a fresh clone has it (tracked files and new ones, as they are in the
// working tree, nothing ignored: no node_modules, no build output, no database).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './processes.js';

export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text under `## heading`, up to the next `## `. */
export function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const next = README.indexOf('\n## ', start + 1);
  return README.slice(start, next < 0 ? undefined : next);
}

/** The fenced blocks of a text, with their info string (`sh`, `ts`, or empty). */
export function blocks(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] ?? '',
    body: m[2] ?? '',
  }));
}

/** A shell block's command lines, as written (a line's trailing comment is the shell's to ignore). */
export function commands(body: string): string[] {
  return body.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
}

/** The repository as a fresh clone has it, copied to `dest`. */
export function freshCopy(dest: string): void {
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: ROOT, encoding: 'utf8' },
  )
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(ROOT, f)));
  for (const f of files) {
    mkdirSync(dirname(join(dest, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dest, f));
  }
}

/** Variables `pnpm test` or npx set for this process that a user's shell has not. */
const RUNNER_VARS = /^(npm_|pnpm_config_|pnpm_script_src_dir$|init_cwd$)/i;

/**
 * The environment of a user's shell: none of the variables `pnpm test` or npx set for this process
 * (npm_config_local_prefix would point npm at this workspace instead of the folder it runs in).
 */
export const userEnv = (): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => !RUNNER_VARS.test(e[0]) && e[1] !== undefined,
    ),
  ),
  npm_config_update_notifier: 'false',
});

/**
 * Removes a folder in a process of its own, not waited for: an installed copy holds tens of thousands of files,
 * whose removal took 30 s of a loaded machine, time the suite need not wait for.
 */
export function removeLater(dir: string): void {
  spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' }).unref();
}
