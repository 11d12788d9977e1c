// The packages as a user outside this repository gets them: both built and packed with pnpm, installed with
// npm into a temporary folder outside the workspace (dependencies from the npm registry or its cache), then a
// tool defined and called there, and `npx toolscope serve` run from the compiled JavaScript. Install scripts are
// skipped: the one that matters, better-sqlite3's, would compile SQLite from source for minutes here, so its
// binary is copied from the workspace's build of the same version instead.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './processes.js';

const work = mkdtempSync(join(tmpdir(), 'toolscope-pack-'));
let serve: ChildProcess | undefined;
let deployed: ChildProcess | undefined;
afterAll(() => {
  deployed?.kill('SIGKILL');
  // npx runs the bin in a child of its own: end the whole process group.
  if (serve?.pid) {
    try {
      process.kill(-serve.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

// The environment of a user's shell: none of the npm_* variables that `pnpm test` or npx set for this process
// (npm_config_local_prefix would point npm at this workspace instead of the folder it runs in).
const userEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
  ),
  npm_config_update_notifier: 'false',
};

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: userEnv,
  });

const version = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('exit', (code) => reject(new Error(`toolscope serve exited ${code}: ${out}`)));
  });
}

describe('installing the packed packages outside the workspace', () => {
  it('defines and calls a tool there, and runs `npx toolscope serve` from compiled JavaScript', async () => {
    const all = [
      ...['--filter', '@toolscope/instrument', '--filter', '@toolscope/collector'],
      ...['--filter', '@toolscope/proxy'],
    ];
    const packs = join(work, 'packs');
    run('pnpm', [...all, 'run', 'build'], ROOT);
    run('pnpm', [...all, 'pack', '--pack-destination', packs], ROOT);
    const tarballs = readdirSync(packs).map((f) => join(packs, f));
    expect(readdirSync(packs).sort()).toEqual([
      'toolscope-collector-0.1.0.tgz',
      'toolscope-instrument-0.1.0.tgz',
      'toolscope-proxy-0.1.0.tgz',
    ]);

    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    const npmFlags = ['--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'];
    run('npm', ['install', ...npmFlags, ...tarballs, '@opentelemetry/api@1.9.1', 'zod@4.6.7'], app);
    // Only what the library uses at run time: no Node SDK forced on users who run their own.
    expect(existsSync(join(app, 'node_modules/@opentelemetry/sdk-node'))).toBe(false);
    const compiled = dirname(
      realpathSync(
        createRequire(join(ROOT, 'packages/collector/package.json')).resolve(
          'better-sqlite3/package.json',
        ),
      ),
    );
    const installed = join(app, 'node_modules/better-sqlite3');
    expect(version(installed)).toBe(version(compiled));
    cpSync(
      join(compiled, 'build/Release/better_sqlite3.node'),
      join(installed, 'build/Release/better_sqlite3.node'),
    );

    writeFileSync(
      join(app, 'tool.mjs'),
      `import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';
const getOrder = defineTool({
  name: 'get_order', version: '1', effect: 'read', description: 'Orders of one customer',
  input: z.object({ customerId: z.string() }).strict(), output: z.object({ ok: z.boolean() }),
  execute: () => ({ ok: true }),
});
console.log(JSON.stringify([await getOrder.call({ customerId: 42 }), await getOrder.call({ customerId: 'c1' })]));
`,
    );
    const [bad, good] = JSON.parse(run('node', ['tool.mjs'], app)) as {
      ok: boolean;
      code?: string;
    }[];
    expect(bad).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(good).toMatchObject({ ok: true });

    serve = spawn(
      'npx',
      [
        '--no-install',
        'toolscope',
        'serve',
        '--port',
        '0',
        '--grpc-port',
        '0',
        '--db',
        join(app, 'x.db'),
      ],
      {
        cwd: app,
        env: userEnv,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const url = await listeningUrl(serve);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script');
    // The compiled CLI, not TypeScript sources.
    expect(realpathSync(join(app, 'node_modules/.bin/toolscope'))).toMatch(
      /node_modules\/@toolscope\/collector\/bin\/toolscope\.js$/,
    );

    // The proxy alone: no native module, and `npx toolscope-proxy` forwards a server's bytes as they are.
    const proxyApp = join(work, 'proxy-app');
    mkdirSync(proxyApp);
    writeFileSync(join(proxyApp, 'package.json'), JSON.stringify({ name: 'p', private: true }));
    const own = tarballs.filter((t) => !t.includes('collector'));
    run('npm', ['install', ...npmFlags, ...own], proxyApp);
    expect(existsSync(join(proxyApp, 'node_modules/better-sqlite3'))).toBe(false);
    const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    const echoed = execFileSync(
      'npx',
      ['--no-install', 'toolscope-proxy', '--otlp-endpoint', 'http://127.0.0.1:9', '--', 'cat'],
      {
        cwd: proxyApp,
        env: userEnv,
        input: line,
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    expect(echoed).toBe(line);
  }, 120_000);

  // The Docker image's collector stage, without Docker: the Dockerfile's own `pnpm deploy --prod` command into
  // a temporary folder, then its CMD run from there. Runs after the test above, which built dist/.
  it('deploys the collector as the Dockerfile does, without dev dependencies, and runs its CMD', async () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const deploy = /pnpm --filter (\S+) deploy --prod (\S+)/.exec(dockerfile);
    expect(deploy?.[1]).toBe('@toolscope/collector');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toContain(`COPY --from=build ${deploy?.[2]} /app`);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(runtime)?.[1] ?? '[]') as string[];
    const out = join(work, 'deploy');
    run('pnpm', ['--filter', '@toolscope/collector', 'deploy', '--prod', out], ROOT);

    const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/collector/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const top = readdirSync(join(out, 'node_modules')).flatMap((d) =>
      d.startsWith('@') ? readdirSync(join(out, 'node_modules', d)).map((n) => `${d}/${n}`) : [d],
    );
    expect(top.filter((d) => !d.startsWith('.')).sort()).toEqual(
      Object.keys(pkg.dependencies).sort(),
    );
    for (const dev of Object.keys(pkg.devDependencies))
      expect(existsSync(join(out, 'node_modules', dev)), dev).toBe(false);

    expect(cmd.slice(0, 3)).toEqual(['node', 'bin/toolscope.js', 'serve']);
    const args = cmd
      .slice(3)
      .map((a, i, all) =>
        all[i - 1] === '--db'
          ? join(work, 'deployed.db')
          : all[i - 1] === '--host'
            ? '127.0.0.1'
            : a,
      );
    deployed = spawn(
      'node',
      [cmd[1] as string, 'serve', ...args, '--port', '0', '--grpc-port', '0'],
      {
        cwd: out,
        env: { ...userEnv, NODE_ENV: 'production' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const url = await listeningUrl(deployed);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${url}/`)).text()).toContain('<script');
  }, 120_000);
});
