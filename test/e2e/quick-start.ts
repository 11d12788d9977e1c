// The README's quick start, run as written on a fresh copy of the repository (readme-clone.test.ts makes the copy
// and runs this before pack-install.ts in it): its install line (pnpm into a prefix of the test's own, through
// npm's cache when it can), then `pnpm start` in a network namespace of its own, once with 4317 held by another
// process (a local OpenTelemetry Collector's port) and once with it free, so the README's 4318 and 4317 are the
// real ones and nobody else's. What `pnpm start` prints must be what the README shows. pnpm links from its store
// and reuses better-sqlite3's build from its side-effects cache (decision 0043); `pnpm start` builds the
// dashboard and the three packages, from nothing the first time (docs/decisions/0062).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  inPrivateNetwork,
  type PrivateRunReport,
} from '../../packages/collector/test/private-network.js';
import { blocks, commands, freshCopy, section, userEnv } from './readme.js';

const tryIt = section('Try it');
const [shell, printed] = blocks(tryIt);
const [install, start] = commands(shell?.body ?? '');
/** The README's lines of `pnpm start`'s output: pnpm's own echo of the scripts (stderr), then serve's (stdout). */
const shown = (printed?.body ?? '').trimEnd().split('\n');
const echoes = shown.filter((l) => l.startsWith('$ '));
const served = shown.filter((l) => !l.startsWith('$ '));
/** The README's proxy line, its placeholder server swapped for `cat` (which echoes what the proxy forwards). */
const proxyLine = commands(blocks(section('The proxy'))[0]?.body ?? '')[0];
/** The gRPC line the README says appears when 4317 is taken. */
const busyGrpc = /`(OTLP\/gRPC endpoint: off, [^`]+)`/.exec(tryIt)?.[1];

/** A README line as a pattern: `…` stands for whatever varies (a time, the rest of a long message). */
const pattern = (line: string) =>
  new RegExp(
    `^${line
      .split('…')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

function expectPrinted(run: PrivateRunReport, lines: string[]) {
  for (const echo of echoes) expect(run.stderr).toContain(echo);
  const out = run.stdout.split('\n').slice(0, lines.length);
  expect(out.length).toBe(lines.length);
  for (const [i, line] of lines.entries()) expect(out[i], `line ${i + 1}`).toMatch(pattern(line));
}

/** A user's shell after the README's install line in a fresh copy at `<work>/toolscope`: pnpm in a prefix of its own. */
export type QuickStartClone = { clone: string; env: Record<string, string> };

/** Copies the repository to `<work>/toolscope` and runs the README's install line there, as written. */
export function installAsReadme(work: string): QuickStartClone {
  expect([install, start, busyGrpc, proxyLine].every(Boolean), 'the README has the lines').toBe(
    true,
  );
  const clone = join(work, 'toolscope');
  freshCopy(clone);
  // npm installs pnpm "globally" into the test's own prefix, whose bin then comes first on PATH.
  const prefix = join(work, 'global');
  mkdirSync(prefix);
  const env = {
    ...userEnv(),
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
    npm_config_prefix: prefix,
    npm_config_prefer_offline: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  execFileSync('sh', ['-c', install as string], { cwd: clone, env, stdio: 'pipe' });
  expect(execFileSync('sh', ['-c', 'command -v pnpm'], { env, encoding: 'utf8' }).trim()).toBe(
    join(prefix, 'bin', 'pnpm'),
  );
  return { clone, env };
}

export function quickStartTests(installed: () => QuickStartClone): void {
  describe("the README's quick start on a fresh clone", () => {
    it('starts as written, also where another process holds 4317', async () => {
      expect(start).toMatch(/^pnpm start\b/);
      const { clone, env } = installed();

      // The proxy as the README runs it in a clone: bytes through unchanged.
      const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
      const proxied = execFileSync(
        'sh',
        ['-c', (proxyLine as string).replace('python my_server.py', 'cat')],
        {
          cwd: clone,
          env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
          input: ping,
          encoding: 'utf8',
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      expect(proxied).toBe(ping);

      const startIn = (hold: number[]) =>
        inPrivateNetwork({
          hold,
          command: start as string,
          cwd: clone,
          env,
          onlyEnv: true,
          // Up once the last line the README shows is out.
          until: 'listening on (http://\\S+)[\\s\\S]*"msg":"no hash key',
          fetch: ['/healthz', '/'],
          // Only a hang: the first start builds everything (154 s for both starts at load 7–10).
          timeoutMs: 300_000,
        });
      // One after the other, as a user starts it twice: the first `pnpm start` builds the dashboard and the
      // packages from nothing, the second finds them built. Side by side, both built from nothing in one folder
      // (two tsc writing the same files), twice the CPU of one build (docs/decisions/0062).
      const busy = await startIn([4317]);
      const free = await startIn([]);

      for (const run of [busy, free]) {
        expect(run.up, run.stderr + run.stdout).toBe(true);
        expect(run.url).toBe('http://127.0.0.1:4318');
        expect(run.fetched.map((f) => f.status)).toEqual([200, 200]);
        expect(run.fetched[1]?.body).toContain('<script');
      }
      expectPrinted(free, served);
      // Taken: the README's other gRPC line, and the JSON warning it mentions, the rest as shown.
      const warning = busy.stdout
        .split('\n')
        .findIndex((l) => l.includes('"msg":"OTLP/gRPC not started'));
      expect(warning).toBeGreaterThan(0);
      expectPrinted(
        { ...busy, stdout: busy.stdout.split('\n').toSpliced(warning, 1).join('\n') },
        served.map((l) => (l.startsWith('  OTLP/gRPC endpoint:') ? `  ${busyGrpc}` : l)),
      );
    }, 600_000);
  });
}
