// The README's "Use it in your project" commands, run as written in the fresh copy of the repository the quick
// start installed and built (readme-clone.test.ts; `pnpm build` here rebuilds what changed, as in a user's clone,
// and builds it all when run alone): all three packages built and packed, installed with npm into a project
// folder beside it (dependencies from the npm registry or its cache), `npx toolscope serve` run from the compiled
// JavaScript, and the README's tool example run there against it. Two things differ from a user's shell, both
// outside the commands: the pack folder (/tmp/toolscope) is one of the test's own, and install scripts are
// skipped (npm_config_ignore_scripts): better-sqlite3's would compile SQLite for minutes here, so its binary (and
// zstd-napi's) is copied from the workspace's build of the same version. The collector runs in a network
// namespace of its own, on the README's real port 4318. Cost: 60–90 s of CPU, most of it npm's (docs/decisions/0062).
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inPrivateNetwork } from '../../packages/collector/test/private-network.js';
import { ROOT } from './processes.js';
import { blocks, commands, section, userEnv } from './readme.js';

const env = {
  ...userEnv(),
  npm_config_ignore_scripts: 'true',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });

/** A shell line as a user runs it; its output, npm's warnings (stderr) among it. */
function sh(line: string, cwd: string): { stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', line], { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`\`${line}\` exited ${r.status}:\n${r.stderr}${r.stdout}`);
  return r;
}

const version = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/** A packed tarball's package.json. */
const packedManifest = (tgz: string) =>
  JSON.parse(execFileSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' })) as {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
  };

/** The tests, in `<work>/toolscope` as the quick start left it (installed as the README says, built or not). */
export function packInstallTests(work: string): void {
  const clone = join(work, 'toolscope');
  const project = join(work, 'my-project');
  const packs = join(work, 'packs');
  let deployed: ChildProcess | undefined;
  afterAll(() => {
    deployed?.kill('SIGKILL');
  });

  describe('installing the packed packages as the README says', () => {
    it('packs every package the collector needs, installs them, serves, and runs the README tool there', async () => {
      expect(existsSync(join(clone, 'node_modules')), 'the quick start installed the clone').toBe(
        true,
      );
      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'my-project', private: true, type: 'module' }),
      );

      const lines = commands(blocks(section('Use it in your project'))[0]?.body ?? '');
      const serveLine = lines.find((l) => /\btoolscope serve\b/.test(l));
      expect(serveLine, 'the README starts the collector').toBeDefined();
      let cwd = work;
      const npmWarnings: string[] = [];
      for (const line of lines.slice(0, lines.indexOf(serveLine as string))) {
        const dir = /^cd (\S+)/.exec(line)?.[1];
        if (dir) {
          cwd = resolve(cwd, dir);
          expect(existsSync(cwd), line).toBe(true);
          continue;
        }
        const out = sh(line.replaceAll('/tmp/toolscope', packs), cwd);
        if (/^npm install/.test(line)) npmWarnings.push(out.stderr);
        // Right after the packages themselves: only what the library uses at run time, no Node SDK forced on
        // users who run their own.
        if (npmWarnings.length === 1)
          expect(existsSync(join(project, 'node_modules/@opentelemetry/sdk-node'))).toBe(false);
      }
      expect(cwd).toBe(project);

      // Every @toolscope dependency of a packed package is packed too, at its version: the set installs as a
      // whole today and publishes as a whole later.
      const tarballs = readdirSync(packs).map((f) => join(packs, f));
      const manifests = tarballs.map(packedManifest);
      expect(manifests.map((m) => m.name).sort()).toEqual([
        '@toolscope/collector',
        '@toolscope/instrument',
        '@toolscope/proxy',
      ]);
      for (const m of manifests)
        for (const [dep, range] of Object.entries(m.dependencies ?? {}))
          if (dep.startsWith('@toolscope/'))
            expect(manifests.find((p) => p.name === dep)?.version, `${m.name} → ${dep}`).toBe(
              range,
            );

      // The peer lines the README's install explanation names: npm keeps inside the ranges that run on Node 20.
      const installed = (name: string) => version(join(project, 'node_modules', name));
      expect(installed('@opentelemetry/api')).toMatch(/^1\.9\./);
      expect(installed('@opentelemetry/sdk-node')).toMatch(/^0\.2\d\d\./);
      // The engine warnings npm printed are the ones the README explains (cookie, on Node 20).
      const engines = [...npmWarnings.join('\n').matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map(
        (m) => m[1],
      );
      for (const p of new Set(engines)) expect(section('Use it in your project')).toContain(p);
      if (process.versions.node.startsWith('20.'))
        expect([...new Set(engines)]).toEqual(['cookie@2.0.2']);

      // The collector's native modules, each built in the workspace at the same version: its binary copied.
      for (const [name, binary] of [
        ['better-sqlite3', 'build/Release/better_sqlite3.node'],
        ['zstd-napi', 'build/Release/binding.node'],
      ] as const) {
        const compiled = dirname(
          realpathSync(
            createRequire(join(ROOT, 'packages/collector/package.json')).resolve(
              `${name}/package.json`,
            ),
          ),
        );
        const installedAt = join(project, 'node_modules', name);
        expect(version(installedAt)).toBe(version(compiled));
        mkdirSync(dirname(join(installedAt, binary)), { recursive: true });
        cpSync(join(compiled, binary), join(installedAt, binary));
      }

      // The README's tool example, as written, and a look at what a running collector has loaded.
      const tool = blocks(section('A tool')).find((b) => b.lang === 'ts')?.body ?? '';
      writeFileSync(join(project, 'tool.mjs'), tool);
      writeFileSync(
        join(project, 'loaded.mjs'),
        `import { createRequire } from 'node:module';
  import { startCollector } from '@toolscope/collector';
  const c = await startCollector({ db: ':memory:', port: 0 });
  await fetch(c.url + '/api/tools');
  await fetch(c.url + '/');
  await c.close();
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  console.log(JSON.stringify({ fastify: loaded.some((k) => k.includes('/fastify/')), lightMyRequest: loaded.some((k) => k.includes('light-my-request')) }));
  `,
      );
      const served = await inPrivateNetwork({
        command: serveLine as string,
        cwd: project,
        env,
        onlyEnv: true,
        until: 'listening on (http://\\S+)[\\s\\S]*JSON log lines follow',
        after: [{ command: 'node tool.mjs' }, { command: 'node loaded.mjs' }],
        fetch: ['/healthz', '/', '/api/tools'],
        timeoutMs: 120_000,
      });
      expect(served.up, served.stderr + served.stdout).toBe(true);
      expect(served.url).toBe('http://127.0.0.1:4318');
      // The compiled CLI, not TypeScript sources.
      expect(realpathSync(join(project, 'node_modules/.bin/toolscope'))).toMatch(
        /node_modules\/@toolscope\/collector\/bin\/toolscope\.js$/,
      );
      // The tool ran; without TOOLSCOPE_HASH_KEY it says once that hashes will not match across processes.
      const [toolRun, loaded] = served.after;
      expect(toolRun?.code, toolRun?.output).toBe(0);
      expect(toolRun?.output.replace(/^\(node:\d+\) \[TOOLSCOPE_NO_HASH_KEY\].*\n.*\n?/, '')).toBe(
        '',
      );
      expect([loaded?.code, loaded?.output.trim()]).toEqual([
        0,
        JSON.stringify({ fastify: true, lightMyRequest: false }),
      ]);
      const [health, page, tools] = served.fetched;
      expect(health?.status).toBe(200);
      expect(page?.body).toContain('<script');
      // setupToolscope's spans reached the collector the README started: the invalid call, with its code.
      expect(JSON.parse(tools?.body ?? '{}')).toMatchObject({
        tools: [{ name: 'get_order', calls: 1, codes: { INVALID_INPUT: 1 } }],
      });

      // The proxy alone: no native module, and `npx toolscope-proxy` forwards a server's bytes as they are.
      const proxyApp = join(work, 'proxy-app');
      mkdirSync(proxyApp);
      writeFileSync(join(proxyApp, 'package.json'), JSON.stringify({ name: 'p', private: true }));
      const own = tarballs.filter((t) => !t.includes('collector'));
      run('npm', ['install', ...own], proxyApp);
      expect(existsSync(join(proxyApp, 'node_modules/better-sqlite3'))).toBe(false);
      const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
      const echoed = execFileSync(
        'npx',
        ['--no-install', 'toolscope-proxy', '--otlp-endpoint', 'http://127.0.0.1:9', '--', 'cat'],
        { cwd: proxyApp, env, input: ping, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] },
      );
      expect(echoed).toBe(ping);
    }, 420_000);

    // The Docker image's collector stage, without Docker: the Dockerfile's own `pnpm deploy --prod` command into
    // a temporary folder, then its CMD run from there. Runs after the test above, which built dist/ in the copy.
    it('deploys the collector as the Dockerfile does, without dev dependencies, and runs its CMD', async () => {
      const dockerfile = readFileSync(join(clone, 'Dockerfile'), 'utf8');
      const deploy = /pnpm --filter (\S+) deploy --prod (\S+)/.exec(dockerfile);
      expect(deploy?.[1]).toBe('@toolscope/collector');
      const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
      expect(runtime).toContain(`COPY --from=build ${deploy?.[2]} /app`);
      const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(runtime)?.[1] ?? '[]') as string[];
      // The stage's environment (`ENV K=V …` lines), which its CMD runs with.
      const imageEnv = Object.fromEntries(
        [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((m) =>
          (m[1] as string).split(/\s+/).map((kv) => kv.split('=', 2) as [string, string]),
        ),
      );
      expect(imageEnv.NODE_ENV).toBe('production');
      const out = join(work, 'deploy');
      run('pnpm', ['--filter', '@toolscope/collector', 'deploy', '--prod', out], clone);

      const pkg = JSON.parse(
        readFileSync(join(clone, 'packages/collector/package.json'), 'utf8'),
      ) as {
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
          env: { ...env, ...imageEnv },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const url = await new Promise<string>((resolveUrl, reject) => {
        let text = '';
        deployed?.stdout?.on('data', (d: Buffer) => {
          text += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(text);
          if (m?.[1]) resolveUrl(m[1]);
        });
        deployed?.stderr?.on('data', (d: Buffer) => {
          text += d.toString();
        });
        deployed?.on('exit', (code) =>
          reject(new Error(`toolscope serve exited ${code}: ${text}`)),
        );
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${url}/`)).text()).toContain('<script');
    }, 120_000);
  });
}
