// `pnpm flood`: the built collector (`toolscope serve`, as shipped) under a flood of OTLP/HTTP and OTLP/gRPC
// requests far faster than it, for TOOLSCOPE_FLOOD_SECONDS (default 60) on SQLite and, when scripts/with-postgres.sh
// gives one, on PostgreSQL. Each backend runs twice in a row: at the memory limit (FLOOD_LIMIT_MIB, default:
// serve's own, 200) and, as the reference, with the limit off. Printed per run: the peak resident set (VmHWM, read
// from /proc outside the process) against the limit and against the reference's, the answers, the refusals by
// reason, and the acknowledged spans per second against the reference's; every acknowledged span must be stored.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MALLOC_ENV } from '../src/ingest/malloc-tuning.js';
import { dropPgDatabase, freshPgDatabase, PG_URL } from '../test/backends.js';
import { FloodBatches, type FloodCounts, floodGrpc, floodHttp } from './flood-load.js';
import { sampleRss, statusMiB } from './process-memory.js';

const SECONDS = Number(process.env.TOOLSCOPE_FLOOD_SECONDS ?? 60);
// FLOOD_GZIP=1: every batch gzipped on both protocols, as the OpenTelemetry Collector's exporters send them.
const GZIP = process.env.FLOOD_GZIP === '1';
const LIMIT_MIB = process.env.FLOOD_LIMIT_MIB;
const HTTP_CONNECTIONS = 64;
const GRPC_CALLS = 16;
const bin = fileURLToPath(new URL('../bin/toolscope.js', import.meta.url));
const built = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

type Run = {
  limitMiB: number | undefined;
  startMiB: number;
  peakMiB: number;
  samples: number[];
  http: FloodCounts;
  grpc: FloodCounts;
  storedSpans: number;
  storedToolSpans: number;
  refusals: string[];
  seconds: number;
};

const port = 20_000 + Math.floor(Math.random() * 20_000);
// The collector runs with the C allocator's setting its image sets (ingest/malloc-tuning.ts), unless
// FLOOD_MALLOC=default leaves glibc's own: without it SQLite's resident set stayed at or past the limit.
const mallocEnv: Record<string, string> =
  process.env.FLOOD_MALLOC === 'default' ? {} : { ...MALLOC_ENV };
/** The environment without its allocator settings, so that glibc's default is its default. */
const withoutMalloc = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !(name in MALLOC_ENV)));
const mallocLine = Object.entries(mallocEnv)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');

async function serve(db: string, grpcPort: number, limit: string[]) {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--db', db, '--port', '0', '--grpc-port', String(grpcPort), ...limit],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...withoutMalloc(process.env),
        ...mallocEnv,
        TOOLSCOPE_MEMORY_LIMIT_MIB: '',
        // FLOOD_NODE_OPTIONS: V8 options for the collector alone (e.g. --max-semi-space-size=4).
        NODE_OPTIONS: process.env.FLOOD_NODE_OPTIONS ?? '',
      },
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
  return { child, url };
}

const metricSum = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);

async function floodOnce(db: string, limit: string[], grpcPort: number): Promise<Run> {
  const { child, url } = await serve(db, grpcPort, limit);
  const pid = child.pid as number;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const startMiB = statusMiB(pid, 'VmRSS');
  const batches = new FloodBatches(64);
  const started = Date.now();
  const end = started + SECONDS * 1000;
  const done = () => Date.now() >= end;
  const sampler = sampleRss(pid, 1000);
  const [http, grpc] = await Promise.all([
    floodHttp(url, { batches, concurrency: HTTP_CONNECTIONS, done, gzip: GZIP }),
    floodGrpc(grpcPort, { batches, concurrency: GRPC_CALLS, channels: 4, done, gzip: GZIP }),
  ]);
  const seconds = (Date.now() - started) / 1000;
  const peakMiB = statusMiB(pid, 'VmHWM');
  const samples = sampler.stop();
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const tools = (await (await fetch(`${url}/api/tools?since=1h`)).json()) as {
    tools: { calls: number }[];
  };
  await stop(child);
  return {
    limitMiB: limit.length ? Number(limit[1]) : 200,
    startMiB,
    peakMiB,
    samples,
    http,
    grpc,
    storedSpans: metricSum(metrics, 'toolscope_spans_stored_total'),
    storedToolSpans: tools.tools.reduce((n, t) => n + t.calls, 0),
    refusals: metrics
      .split('\n')
      .filter((l) => l.startsWith('toolscope_ingest_requests_refused_total'))
      .map((l) => l.replace('toolscope_ingest_requests_refused_total', '')),
    seconds,
  };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const load = () =>
  `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
const acked = (r: Run) => r.http.ackedSpans + r.grpc.ackedSpans;

function print(backend: string, r: Run, reference: Run | undefined): void {
  const limited = r.limitMiB !== undefined;
  const tenths = (n: number) => n.toFixed(2);
  const perSecond = acked(r) / r.seconds;
  const lines = [
    `${backend}, ${limited ? `--memory-limit-mib ${r.limitMiB}` : 'no limit (reference)'}, ${r.seconds.toFixed(0)} s, malloc ${mallocLine || "glibc's default"}${GZIP ? ', gzipped' : ''}  [${load()}]`,
    `  peak RSS ${r.peakMiB.toFixed(0)} MiB (${r.startMiB.toFixed(0)} at start)` +
      (limited
        ? `; peak / limit ${tenths(r.peakMiB / (r.limitMiB as number))}` +
          (reference ? `; peak / reference's peak ${tenths(r.peakMiB / reference.peakMiB)}` : '')
        : ''),
    `  RSS each second (MiB): ${r.samples.join(' ')}`,
    `  answers: HTTP ${JSON.stringify(r.http.answers)}, gRPC ${JSON.stringify(r.grpc.answers)}`,
    `  refused: ${r.refusals.join(', ') || 'none'}`,
    `  acknowledged ${acked(r)} spans (${perSecond.toFixed(0)}/s` +
      (limited && reference
        ? `, ${tenths(perSecond / (acked(reference) / reference.seconds))} × the reference's)`
        : ')') +
      `, stored ${r.storedSpans} (tool calls ${r.storedToolSpans} of ${r.http.ackedToolSpans + r.grpc.ackedToolSpans} acknowledged)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (
    r.storedSpans !== acked(r) ||
    r.storedToolSpans !== r.http.ackedToolSpans + r.grpc.ackedToolSpans
  )
    process.exitCode = 1;
  if (limited && r.peakMiB > (r.limitMiB as number)) process.exitCode = 1;
}

if (!existsSync(built)) {
  process.stderr.write('pnpm flood runs the built collector: run `pnpm build` first\n');
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'toolscope-flood-'));
// FLOOD_BACKENDS=postgres (or sqlite) floods one backend alone.
const only = process.env.FLOOD_BACKENDS?.toLowerCase();
// Each backend's databases are dropped once its floods are printed (SQLite's go with the scratch folder).
const made: string[] = [];
const backends: { name: string; db: () => Promise<string>; drop: () => Promise<void> }[] = [
  {
    name: 'SQLite',
    db: async () => join(scratch, `flood-${Math.random().toString(36).slice(2)}.db`),
    drop: async () => {},
  },
  ...(PG_URL
    ? [
        {
          name: 'PostgreSQL',
          db: async () => {
            const db = await freshPgDatabase();
            made.push(db);
            return db;
          },
          drop: async () => {
            for (const db of made.splice(0)) await dropPgDatabase(db);
          },
        },
      ]
    : []),
].filter((b) => !only || b.name.toLowerCase().startsWith(only));
if (!PG_URL)
  process.stdout.write('(no PostgreSQL: run through scripts/with-postgres.sh for both backends)\n');
try {
  for (const backend of backends) {
    const limited = await floodOnce(
      await backend.db(),
      LIMIT_MIB ? ['--memory-limit-mib', LIMIT_MIB] : [],
      port,
    );
    const reference =
      process.env.FLOOD_REFERENCE === '0'
        ? undefined
        : await floodOnce(await backend.db(), ['--memory-limit-mib', '0'], port + 1);
    await backend.drop();
    print(backend.name, limited, reference);
    if (reference) print(backend.name, { ...reference, limitMiB: undefined }, undefined);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
