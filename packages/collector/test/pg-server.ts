// A PostgreSQL server of one test file's own, which the test may kill with SIGKILL and start again: Debian's
// binaries (/usr/lib/postgresql/*/bin) in a temporary directory on a free port, as the `postgres` user when
// run as root (the server refuses root), as scripts/with-postgres.sh does. Without the binaries: undefined,
// and with CI=true an error (a fault test must fail in CI, never skip).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export type OwnPg = {
  /** postgres://postgres:PASSWORD@127.0.0.1:PORT/postgres (trust auth: the password is only there to be hidden). */
  url: string;
  port: number;
  /** SIGKILL to the postmaster; resolves once it is gone. */
  kill9(): Promise<void>;
  /** Starts the server (again) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
};

/** The newest server binaries' folder, when this machine has one. */
export function serverBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const found = readdirSync(root)
    .map((v) => join(root, v, 'bin'))
    .filter((d) => existsSync(join(d, 'postgres')) && existsSync(join(d, 'initdb')));
  return found.at(-1);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A throwaway server, started; undefined when this machine has no PostgreSQL binaries (and not in CI). */
export async function startOwnPg(password: string): Promise<OwnPg | undefined> {
  const bin = serverBin();
  if (!bin) {
    if (process.env.CI === 'true')
      throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql: CI must have them');
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'toolscope-ownpg-'));
  const data = join(dir, 'data');
  const root = process.getuid?.() === 0;
  if (root) await run('chown', ['postgres', dir]);
  const as = (cmd: string, args: string[]): [string, string[]] =>
    root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  await run(...as(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']));
  const port = await freePort();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  let postmaster: number | undefined;

  const accepting = async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  const start = async () => {
    for (;;) {
      const [cmd, args] = as(join(bin, 'postgres'), [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=100',
      ]);
      const started = spawn(cmd, args, { stdio: 'ignore' });
      const exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
      child = started;
      // Polled until it answers, or until it exits: after a SIGKILL the old backends may still hold the shared
      // memory for a moment, and the new postmaster then refuses to start; it is started again.
      let gone = false;
      void exited.then(() => {
        gone = true;
      });
      while (!gone && !(await accepting())) await pause(50);
      if (!gone) {
        postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        return;
      }
      await pause(100);
    }
  };

  const kill9 = async () => {
    const pid = postmaster;
    const runner = child;
    if (pid === undefined || !runner) throw new Error('the server is not running');
    const exited = new Promise<void>((resolve) => {
      if (runner.exitCode !== null || runner.signalCode !== null) resolve();
      else runner.once('exit', () => resolve());
    });
    process.kill(pid, 'SIGKILL');
    await exited;
    while (alive(pid)) await pause(10);
    postmaster = undefined;
  };

  const stop = async () => {
    if (postmaster !== undefined) await kill9().catch(() => undefined);
    // Backends orphaned by the last kill exit on their own; the directory goes once they have.
    rmSync(dir, { recursive: true, force: true });
  };

  await start();
  return { url, port, kill9, start, stop };
}
