// Docker cannot run here, so this checks docker-compose.yml against what the code actually reads: images
// and Dockerfile, commands (the collector and server commands are run for real with their flags), ports,
// service URLs, health checks, every environment variable, and the OpenTelemetry Collector profile.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { freshPgDatabase, PG_URL } from '../../packages/collector/test/backends.js';
import { ROOT, start, stopAll } from './processes.js';

const serviceSchema = z.object({
  build: z.object({ context: z.string(), target: z.string() }).optional(),
  image: z.string().optional(),
  command: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  ports: z.array(z.string()).optional(),
  expose: z.array(z.string()).optional(),
  depends_on: z
    .record(z.string(), z.object({ condition: z.string(), required: z.boolean().optional() }))
    .optional(),
  networks: z.record(z.string(), z.object({ aliases: z.array(z.string()).optional() })).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
  profiles: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
});
type Service = z.infer<typeof serviceSchema>;
const composeSchema = z.object({
  services: z.record(z.string(), serviceSchema),
  volumes: z.record(z.string(), z.unknown().nullable()).optional(),
});

const compose = composeSchema.parse(
  parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }),
);
const services = compose.services;
const svc = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const flagValue = (args: string[], flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
/** A value as compose interpolates it: `${VAR}` and `${VAR:-default}` from `env` (what this file uses). */
const interpolate = (value: string, env: Record<string, string> = {}) =>
  value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) =>
    env[name] ? env[name] : (fallback ?? ''),
  );
const healthPort = (s: Service) =>
  /127\.0\.0\.1:(\d+)\//.exec(s.healthcheck?.test.join(' ') ?? '')?.[1];

afterAll(() => stopAll());

/** Each of these tests starts two processes in turn, each given waitFor's own 30 s to show it is up. */
const PROCESS_TEST_MS = 90_000;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'test') continue;
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}
const ourSources = [
  ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'src')),
  ...readdirSync(join(ROOT, 'examples')).map((p) => join(ROOT, 'examples', p, 'src')),
]
  .filter(existsSync)
  .flatMap((d) => sourceFiles(d))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

/** The OTLP exporter's own environment configuration (what OTEL_EXPORTER_OTLP_* the SDK reads). */
function exporterEnvSource(): string {
  const fromInstrument = createRequire(join(ROOT, 'packages/instrument/package.json'));
  const proto = fromInstrument.resolve('@opentelemetry/exporter-trace-otlp-proto');
  const base = createRequire(proto).resolve('@opentelemetry/otlp-exporter-base');
  let dir = dirname(base);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return readFileSync(
    join(dir, 'build/src/configuration/otlp-node-http-env-configuration.js'),
    'utf8',
  );
}

describe('docker-compose.yml', () => {
  it('builds every app service from the repository Dockerfile, whose toolchain matches the workspace', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      packageManager: string;
      engines: { node: string };
    };
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`pnpm@${pkg.packageManager.split('@')[1]}`);
    expect(dockerfile).toMatch(new RegExp(`FROM node:${pkg.engines.node.match(/\d+/)?.[0]}-`));
    expect(dockerfile).toContain('pnpm install --frozen-lockfile');
    // The runtime stage: /data exists, belongs to the user the image runs as, and is a volume.
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runtime).toMatch(/mkdir -p \/data && chown node:node \/data/);
    expect(runtime).toContain('VOLUME ["/data"]');
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/"--db", "\/data\/toolscope\.db"/);
    // Nothing of the build stage but the production-only deploy reaches the runtime image (pack-install.ts
    // runs that deploy and checks its node_modules): no dev dependency, no workspace, no build tools.
    const deployed = /pnpm --filter @toolscope\/collector deploy --prod (\S+)/.exec(
      dockerfile,
    )?.[1];
    expect(deployed).toBeDefined();
    expect([...runtime.matchAll(/^COPY .*$/gm)].map((m) => m[0])).toEqual([
      `COPY --from=build ${deployed} /app`,
    ]);
    expect(runtime).toMatch(/^FROM node:\d+-bookworm-slim AS collector$/m);
    expect(runtime).not.toMatch(/pnpm install|npm install|apt-get/);
    expect(runtime).toContain('ENV NODE_ENV=production');
    // The collector runs from the production-only stage (the default, last one); the examples from `demo`.
    const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\w+)$/gm)].map((m) => m[1]);
    expect(stages.at(-1)).toBe('collector');
    for (const [name, target] of [
      ['collector', 'collector'],
      ['orders-stable', 'demo'],
      ['orders-canary', 'demo'],
      ['agent', 'demo'],
    ] as const) {
      expect(svc(name).build, name).toEqual({ context: '.', target });
      expect(stages, name).toContain(target);
      expect(svc(name).image, name).toBe(`toolscope:${target}`);
    }
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8')).toMatch(/^node_modules$/m);
    for (const [name, s] of Object.entries(services)) {
      for (const dep of Object.keys(s.depends_on ?? {}))
        expect(services, `${name} → ${dep}`).toHaveProperty(dep);
    }
  });

  it(
    'runs the collector command as written, on the port it publishes and health-checks',
    async () => {
      const c = svc('collector');
      const cmd = c.command ?? [];
      // The command's path is inside the deployed package (the image's /app); pack-install.ts deploys it.
      expect(cmd.slice(0, 3)).toEqual(['node', 'bin/toolscope.js', 'serve']);
      expect(existsSync(join(ROOT, 'packages/collector', cmd[1] ?? ''))).toBe(true);
      const port = flagValue(cmd, '--port');
      const grpcPort = flagValue(cmd, '--grpc-port');
      // Published on loopback unless told otherwise, and the collector is told where (it refuses to start
      // published wider without a token).
      const published = (env: Record<string, string>) =>
        (c.ports ?? []).map((p) => interpolate(p, env));
      expect(published({})).toEqual([
        `127.0.0.1:${port}:${port}`,
        `127.0.0.1:${grpcPort}:${grpcPort}`,
      ]);
      const wide = { TOOLSCOPE_PUBLISH_ADDRESS: '0.0.0.0' };
      expect(published(wide)).toEqual([
        `0.0.0.0:${port}:${port}`,
        `0.0.0.0:${grpcPort}:${grpcPort}`,
      ]);
      const collectorEnv = (env: Record<string, string>) =>
        Object.fromEntries(
          Object.entries(c.environment ?? {}).map(([k, v]) => [k, interpolate(v, env)]),
        );
      expect(collectorEnv({}).TOOLSCOPE_PUBLISH_ADDRESS).toBe('127.0.0.1');
      expect(collectorEnv(wide).TOOLSCOPE_PUBLISH_ADDRESS).toBe('0.0.0.0');
      expect(healthPort(c)).toBe(port);
      // The same flags, on a free port and a temporary database, through the real CLI.
      const dir = mkdtempSync(join(tmpdir(), 'toolscope-compose-'));
      const args = cmd
        .slice(3)
        .map((a, i, all) =>
          all[i - 1] === '--port' || all[i - 1] === '--grpc-port'
            ? '0'
            : all[i - 1] === '--db'
              ? join(dir, 'c.db')
              : all[i - 1] === '--host'
                ? '127.0.0.1'
                : a,
        );
      // The healthcheck's path, without a token and with one: `TOOLSCOPE_TOKEN=… docker compose up` must start.
      const healthPath = new URL(
        /fetch\('([^']+)'/.exec(c.healthcheck?.test.join(' ') ?? '')?.[1] ?? '',
      ).pathname;
      const refused = start(
        'packages/collector/src/cli/main.ts',
        ['serve', ...args],
        collectorEnv(wide),
      );
      expect(await refused.exited).toBe(2);
      expect(refused.output()).toContain('beyond loopback: set a token');
      for (const token of ['', 'compose-token-123456']) {
        const proc = start('packages/collector/src/cli/main.ts', ['serve', ...args], {
          ...collectorEnv(token ? { ...wide, TOOLSCOPE_TOKEN: token } : {}),
        });
        const url = (await proc.waitFor(/listening on (\S+)/))[1] as string;
        expect((await fetch(`${url}${healthPath}`)).status, `token "${token}"`).toBe(200);
        expect((await fetch(`${url}/api/tools`)).status).toBe(token ? 401 : 200);
        proc.child.kill('SIGTERM');
        expect(await proc.exited).toBe(0);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    PROCESS_TEST_MS,
  );

  it(
    'runs each server deployment as written; the agent URLs name those services and ports',
    async () => {
      const pkg = JSON.parse(
        readFileSync(join(ROOT, 'examples/orders-mcp/package.json'), 'utf8'),
      ) as {
        name: string;
        scripts: Record<string, string>;
      };
      const agentEnv = svc('agent').environment ?? {};
      for (const [name, variant, urlKey] of [
        ['orders-stable', 'stable', 'ORDERS_STABLE_URL'],
        ['orders-canary', 'canary', 'ORDERS_CANARY_URL'],
      ] as const) {
        const s = svc(name);
        const cmd = s.command ?? [];
        expect(cmd.slice(0, 4)).toEqual(['pnpm', '--filter', pkg.name, 'server']);
        expect(pkg.scripts.server).toContain('src/server.ts');
        const port = flagValue(cmd, '--http') as string;
        expect(s.expose).toEqual([port]);
        expect(healthPort(s)).toBe(port);
        expect(s.environment?.ORDERS_VARIANT).toBe(variant);
        expect(agentEnv[urlKey]).toBe(`http://${name}:${port}/mcp`);
        const proc = start(
          'examples/orders-mcp/src/server.ts',
          ['--http', '0', '--host', '127.0.0.1'],
          {
            ORDERS_VARIANT: variant,
            OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
          },
        );
        const m = await proc.waitFor(/orders-mcp \((\w+)\) listening on (\S+)/);
        expect(m[1]).toBe(variant);
        expect((await fetch(new URL('/health', m[2]))).status).toBe(200);
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
      const agent = svc('agent').command ?? [];
      expect(agent).toEqual(['pnpm', '--filter', pkg.name, 'agent']);
      expect(pkg.scripts.agent).toContain('src/agent.ts');
    },
    PROCESS_TEST_MS,
  );

  it('captures no tool content by default: the demo records arguments and results only when asked', () => {
    for (const name of ['orders-stable', 'orders-canary', 'agent']) {
      const env = svc(name).environment ?? {};
      expect(interpolate(env.TOOLSCOPE_CAPTURE_CONTENT ?? '', {}), name).toBe('false');
      expect(
        interpolate(env.TOOLSCOPE_CAPTURE_CONTENT ?? '', { TOOLSCOPE_CAPTURE_CONTENT: 'true' }),
      ).toBe('true');
    }
    // Neither collector turns capture of other producers' content on.
    for (const name of ['collector', 'collector-replica']) {
      expect(svc(name).command ?? []).not.toContain('--capture-content');
      expect(svc(name).environment ?? {}).not.toHaveProperty('TOOLSCOPE_CAPTURE_CONTENT');
    }
  });

  it('sets only environment variables that the code or the OTel SDK reads, pointing at real services', () => {
    const exporterEnv = exporterEnvSource();
    for (const [name, s] of Object.entries(services)) {
      // Third-party images (postgres) read their own documented variables.
      if (!s.image?.startsWith('toolscope:')) continue;
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (key.startsWith('OTEL_')) {
          expect(ourSources.includes(key) || exporterEnv.includes(key), `${name}: ${key}`).toBe(
            true,
          );
        } else {
          expect(ourSources, `${name}: ${key} is read by no source file`).toContain(key);
        }
        const url = /^\$\{\w+:-(http:\/\/[^}]+)\}$|^(http:\/\/\S+)$/.exec(value);
        const target = url?.[1] ?? url?.[2];
        if (target)
          expect(services, `${name}: ${key}=${value}`).toHaveProperty(new URL(target).hostname);
      }
    }
  });

  it('has an otel profile whose collector forwards to Toolscope on its real port', () => {
    const o = svc('otel-collector');
    expect(o.profiles).toEqual(['otel']);
    const mount = (o.volumes ?? [])[0]?.split(':') ?? [];
    const config = parse(readFileSync(join(ROOT, mount[0] ?? ''), 'utf8')) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      exporters: Record<string, { endpoint?: string }>;
      service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
    };
    expect(o.command).toEqual([`--config=${mount[1]}`]);
    const receiverPort = config.receivers.otlp.protocols.http.endpoint.split(':')[1];
    expect(o.expose).toEqual([receiverPort]);
    const toolscope = new URL(config.exporters['otlphttp/toolscope']?.endpoint ?? '');
    expect(toolscope.hostname).toBe('collector');
    expect(toolscope.port).toBe(flagValue(svc('collector').command ?? [], '--port'));
    for (const e of config.service.pipelines.traces.exporters)
      expect(config.exporters).toHaveProperty(e);
    expect(config.service.pipelines.traces.exporters.length).toBeGreaterThanOrEqual(2);
  });

  it.skipIf(!PG_URL)(
    'has a scale profile: two identical collectors on the postgres service, both reading the same store',
    async () => {
      const primary = svc('collector');
      const replica = svc('collector-replica');
      const pgService = svc('postgres');
      expect(replica.profiles).toEqual(['scale']);
      expect(pgService.profiles).toEqual(['scale']);
      expect(replica.command).toEqual(primary.command);
      expect(replica.environment).toEqual(primary.environment);
      expect(replica.healthcheck).toEqual(primary.healthcheck);
      for (const s of [primary, replica]) {
        expect(s.networks?.default?.aliases).toContain('collectors');
        expect(s.depends_on?.postgres).toEqual({ condition: 'service_healthy', required: false });
      }
      expect(pgService.image).toMatch(/^postgres:\d+/);
      expect(pgService.healthcheck?.test).toContain('pg_isready');
      // The URL the header tells users to set names this service and its credentials.
      const header = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
      const documented = /TOOLSCOPE_DB=(postgres:\/\/\S+)/.exec(header)?.[1] ?? '';
      const url = new URL(documented);
      const env = pgService.environment ?? {};
      expect([url.hostname, url.port, url.username, url.password, url.pathname.slice(1)]).toEqual([
        'postgres',
        '5432',
        env.POSTGRES_USER,
        env.POSTGRES_PASSWORD,
        env.POSTGRES_DB,
      ]);
      expect(/OTLP_ENDPOINT=http:\/\/(\w+):(\d+)/.exec(header)?.slice(1)).toEqual([
        'collectors',
        flagValue(primary.command ?? [], '--port'),
      ]);
      expect(primary.command).toContain(['$', '{TOOLSCOPE_DB:-/data/toolscope.db}'].join(''));
      // Both commands as written, on one PostgreSQL database: a span sent to one is read from the other.
      const db = await freshPgDatabase();
      const urls: string[] = [];
      for (const s of [primary, replica]) {
        const args = (s.command ?? [])
          .slice(3)
          .map((a, i, all) =>
            all[i - 1] === '--port' || all[i - 1] === '--grpc-port'
              ? '0'
              : all[i - 1] === '--db'
                ? db
                : all[i - 1] === '--host'
                  ? '127.0.0.1'
                  : a,
          );
        const proc = start('packages/collector/src/cli/main.ts', ['serve', ...args], {
          TOOLSCOPE_TOKEN: '',
        });
        urls.push((await proc.waitFor(/listening on (\S+)/))[1] as string);
      }
      const traceId = 'a'.repeat(32);
      const body = {
        resourceSpans: [
          {
            resource: { attributes: [] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId,
                    spanId: 'b'.repeat(16),
                    name: 'execute_tool get_order',
                    kind: 1,
                    startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
                    endTimeUnixNano: String(BigInt(Date.now() + 3) * 1_000_000n),
                    attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: 'get_order' } }],
                  },
                ],
              },
            ],
          },
        ],
      };
      const sent = await fetch(`${urls[0]}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(sent.status).toBe(200);
      expect((await fetch(`${urls[1]}/api/traces/${traceId}`)).status).toBe(200);
    },
    60_000,
  );
});
