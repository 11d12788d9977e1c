// Inside the namespace private-network.ts made: holds the ports, runs the command, waits for its line, runs the
// follow-up commands and fetches, stops the command's process group with SIGINT (SIGKILL after 15 s) and prints
// one report line. The command's own output is collected, never inherited, so stdout carries only the report.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { PrivateRun, PrivateRunReport } from './private-network.js';

const run = JSON.parse(process.env.PRIVATE_RUN ?? '{}') as PrivateRun;
const env: NodeJS.ProcessEnv = run.onlyEnv ? { ...run.env } : { ...process.env, ...run.env };
delete env.PRIVATE_RUN;

for (const port of run.hold ?? [])
  await new Promise<void>((resolve) => createServer().listen(port, '127.0.0.1', resolve));

const sh = (command: string, cwd: string, extra: Record<string, string> = {}): ChildProcess =>
  spawn('sh', ['-c', command], {
    cwd,
    env: { ...env, ...extra },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const child = sh(run.command, run.cwd);
let stdout = '';
let stderr = '';
child.stdout?.on('data', (d: Buffer) => {
  stdout += d.toString();
});
child.stderr?.on('data', (d: Buffer) => {
  stderr += d.toString();
});
const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
let done = false;
void exited.then(() => {
  done = true;
});

// Waits on the command's progress: its output, or its exit.
const until = new RegExp(run.until);
const deadline = Date.now() + (run.timeoutMs ?? 60_000);
let match: RegExpExecArray | null = null;
while (!done && Date.now() < deadline) {
  match = until.exec(stdout);
  if (match) break;
  await new Promise((r) => setTimeout(r, 50));
}
match ??= until.exec(stdout);
const url = match?.[1] ?? null;

const report: PrivateRunReport = {
  up: match !== null && !done,
  code: null,
  stdout: '',
  stderr: '',
  url,
  after: [],
  fetched: [],
};
if (report.up) {
  for (const step of run.after ?? []) {
    const p = sh(step.command, step.cwd ?? run.cwd, url ? { URL: url } : {});
    let output = '';
    p.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    p.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    report.after.push({ command: step.command, code, output });
  }
  for (const path of run.fetch ?? []) {
    const res = await fetch(`${url}${path}`);
    report.fetched.push({ path, status: res.status, body: (await res.text()).slice(0, 4000) });
  }
  const pid = child.pid as number;
  process.kill(-pid, 'SIGINT');
  const kill = setTimeout(() => process.kill(-pid, 'SIGKILL'), 15_000);
  report.code = await exited;
  clearTimeout(kill);
} else {
  if (!done) process.kill(-(child.pid as number), 'SIGKILL');
  report.code = await exited;
}
report.stdout = stdout;
report.stderr = stderr;
process.stdout.write(`private-network-report:${JSON.stringify(report)}\n`);
process.exit(0);
