// `pnpm bench:ingest [-- --db postgres://… --collectors N]`: spans/s end to end (protobuf batches of 512 over
// loopback to `toolscope serve` processes, counted when acknowledged), beside the true reference measured in the
// same run: the same rows written with plain prepared INSERTs (SQLite) or COPY (PostgreSQL) into a minimal
// table set (reference.ts). Also each collector's peak RSS and CPU per span. Prints numbers; asserts
// nothing. With a PostgreSQL URL, the database must be empty or a Toolscope database it may add to.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeProtobuf, type NormalizedSpan } from '../src/index.js';
import { postgresReference, refRows, sqliteReference } from './reference.js';
import { makeSpans, protobufBatches } from './spans.js';

const { values: args } = parseArgs({
  options: { db: { type: 'string' }, collectors: { type: 'string' } },
});
const TRACES = Number(process.env.BENCH_TRACES ?? 25_000); // 8 spans each
const BATCH = 512;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const COLLECTORS = Number(args.collectors ?? 1);
const dir = mkdtempSync(join(tmpdir(), 'toolscope-bench-'));
const pgUrl = args.db ?? process.env.BENCH_DB;
const db = pgUrl ?? join(dir, 'e2e.db');
if (!pgUrl && COLLECTORS > 1)
  throw new Error('several collectors need a shared --db postgres://… URL');

const t0 = Date.now();
// A seed from the clock: runs against the same PostgreSQL database never re-send ids already stored.
const spans = makeSpans(TRACES, Date.now() % 1_000_000_000);
const batches = protobufBatches(spans, BATCH);
console.log(
  `bench:ingest  node ${process.version}  ${pgUrl ? `PostgreSQL, ${COLLECTORS} collector(s)` : 'SQLite'}  ${spans.length} spans in ${batches.length} protobuf batches of ${BATCH} (${Math.round(batches.reduce((a, b) => a + b.length, 0) / batches.length / 1024)} KiB each), generated in ${Date.now() - t0} ms`,
);

// ── end to end: real `toolscope serve` processes ──
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
async function serve(): Promise<{ child: ChildProcess; url: string; pid: number }> {
  const child = spawn(
    tsx,
    [
      '--conditions=@toolscope/source',
      main,
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--grpc-port',
      '0',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
  });
  const pid = await new Promise<number>((resolve) => {
    // tsx runs the CLI in a child node process: find it to read its memory and CPU.
    const ps = spawn('pgrep', ['-P', String(child.pid)]);
    let pids = '';
    ps.stdout.on('data', (d: Buffer) => (pids += d.toString()));
    ps.on('exit', () => resolve(Number(pids.trim().split('\n')[0]) || (child.pid as number)));
  });
  return { child, url, pid };
}
const servers = await Promise.all(Array.from({ length: COLLECTORS }, serve));

async function send(url: string, body: Uint8Array): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body,
    });
    await res.arrayBuffer();
    if (res.status === 200) return;
    if (res.status !== 429 && res.status !== 503) throw new Error(`unexpected ${res.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
// CPU seconds of a process (all its threads), from /proc: utime + stime in clock ticks (USER_HZ = 100).
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// The first 5 % warm up (JIT, caches, pool connections) and are not counted.
const warm = Math.ceil(batches.length * 0.05);
for (let i = 0; i < warm; i++)
  await send(servers[i % COLLECTORS]?.url ?? '', batches[i] as Uint8Array);
let next = warm;
const cpuStart = servers.map((s) => cpuSeconds(s.pid));
const start = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async (_, worker) => {
    const url = servers[worker % COLLECTORS]?.url ?? '';
    while (next < batches.length) await send(url, batches[next++] as Uint8Array);
  }),
);
const e2eSeconds = Number(process.hrtime.bigint() - start) / 1e9;
const cpu = servers.reduce((n, s, i) => n + cpuSeconds(s.pid) - (cpuStart[i] ?? 0), 0);
const e2eSpans = (batches.length - warm) * BATCH;
const rss = servers.map(
  (s) =>
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
);
for (const s of servers) s.child.kill('SIGTERM');
await Promise.all(servers.map((s) => new Promise((r) => s.child.on('exit', r))));

// ── the reference: the same rows, decoded beforehand, plain INSERTs into a minimal table set ──
const decoded: NormalizedSpan[][] = batches.map((b) => {
  const d = decodeProtobuf(b);
  if (!d.ok) throw new Error(d.message);
  return d.batch.spans;
});
const rows = refRows(decoded.slice(warm));
const refRate = pgUrl
  ? await postgresReference(pgUrl, rows, 'copy')
  : sqliteReference(join(dir, 'ref.db'), rows);
const insertRate = pgUrl ? await postgresReference(pgUrl, rows, 'insert') : undefined;
rmSync(dir, { recursive: true, force: true });

const e2eRate = e2eSpans / e2eSeconds;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);
console.log(
  `  end to end (HTTP, protobuf, ${CONCURRENCY} concurrent, acked)  ${fmt(e2eRate)} spans/s`,
);
console.log(
  `  reference: ${pgUrl ? 'COPY' : 'plain prepared INSERTs'} of the same rows into minimal tables  ${fmt(refRate)} spans/s`,
);
if (insertRate !== undefined)
  console.log(`  (multi-row INSERT of the same rows, for comparison  ${fmt(insertRate)} spans/s)`);
console.log(
  `  ratio end to end / reference                 ${(e2eRate / refRate).toFixed(2).padStart(9)}`,
);
console.log(
  `  collector peak RSS                           ${rss
    .map((r) => r.toFixed(0))
    .join(', ')
    .padStart(9)} MiB`,
);
console.log(
  `  collector CPU per span, all threads          ${((cpu * 1e6) / e2eSpans).toFixed(1).padStart(9)} µs  (${(cpu / e2eSeconds).toFixed(2)} of 2 cores)`,
);
