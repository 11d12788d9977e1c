// Runs a command in a network namespace of its own (`unshare -rn`: a loopback no other process sees), so a test
// can bind the fixed ports a user's command binds (4318, 4317) and hold one with "another process", as a local
// OpenTelemetry Collector would, without touching the machine's ports or other tests'. The runner
// (private-network-runner.ts) holds the ports, starts the command, waits for its line, runs the follow-up
// commands and fetches inside the namespace, stops it and reports. Needs user namespaces (root here); a machine
// without them fails the test with unshare's message rather than skipping it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { builtProgram } from './built.js';

export type PrivateRun = {
  /** Ports held by a plain TCP listener before the command starts. */
  hold?: number[];
  /** A shell line (run with `sh -c`), as a user would type it. */
  command: string;
  cwd: string;
  /** Added to this process's environment, or, with `onlyEnv`, the whole environment of the commands. */
  env?: Record<string, string>;
  onlyEnv?: boolean;
  /** Stdout text that says the command is up (a regular expression); its first group, if any, is `$URL`. */
  until: string;
  /** Commands run after it is up, in order, with `URL` set (each `sh -c`, in `cwd` unless given). */
  after?: { command: string; cwd?: string }[];
  /** Paths fetched from `$URL` after those. */
  fetch?: string[];
  /** Longest wait for `until`, in ms (default 60 s). */
  timeoutMs?: number;
};

const reportSchema = z.object({
  /** Whether `until` was seen before the command exited. */
  up: z.boolean(),
  /** The command's exit code: when it exited by itself, or after the SIGINT that stops it. */
  code: z.number().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  url: z.string().nullable(),
  after: z.array(
    z.object({ command: z.string(), code: z.number().nullable(), output: z.string() }),
  ),
  fetched: z.array(z.object({ path: z.string(), status: z.number(), body: z.string() })),
});
export type PrivateRunReport = z.infer<typeof reportSchema>;

const RUNNER = fileURLToPath(new URL('./private-network-runner.ts', import.meta.url));
const MARK = 'private-network-report:';

export function inPrivateNetwork(run: PrivateRun): Promise<PrivateRunReport> {
  const child = spawn(
    'unshare',
    [
      '-rn',
      'sh',
      '-c',
      'ip link set lo up && exec "$@"',
      'sh',
      process.execPath,
      // Plain JavaScript (built.ts): under tsx the runner cost about 1 s of CPU more a run (docs/decisions/0062).
      builtProgram(RUNNER),
    ],
    {
      env: { ...process.env, PRIVATE_RUN: JSON.stringify(run) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(MARK));
      if (!line) {
        reject(new Error(`private network run failed (exit ${code}): ${err}${out}`));
        return;
      }
      resolve(reportSchema.parse(JSON.parse(line.slice(MARK.length))));
    });
  });
}
