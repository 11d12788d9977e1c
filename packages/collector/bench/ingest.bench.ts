// `pnpm bench:ingest`: spans/s end to end (protobuf batches of 512 over loopback to a `toolscope serve`
// process, counted when acknowledged), the raw insert rate of the same rows into the same schema without
// HTTP, their ratio, and the collector's peak RSS. Prints numbers; asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeProtobuf, type NormalizedSpan, openSqliteStorage } from '../src/index.js';
import { makeSpans, protobufBatches } from './spans.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 25_000); // 8 spans each
const BATCH = 512;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const dir = mkdtempSync(join(tmpdir(), 'toolscope-bench-'));
const t0 = Date.now();
const spans = makeSpans(TRACES);
const batches = protobufBatches(spans, BATCH);
console.log(
  `bench:ingest  node ${process.version}  ${spans.length} spans in ${batches.length} protobuf batches of ${BATCH} (${Math.round(batches.reduce((a, b) => a + b.length, 0) / batches.length / 1024)} KiB each), generated in ${Date.now() - t0} ms`,
);

// ── end to end: a real `toolscope serve` process ──
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const child = spawn(
  tsx,
  ['--conditions=@toolscope/source', main, 'serve', '--db', join(dir, 'e2e.db'), '--port', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let out = '';
const url = await new Promise<string>((resolve) => {
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m?.[1]) resolve(m[1]);
  });
});
const serverPid = await new Promise<number>((resolve) => {
  // tsx runs the CLI in a child node process: find it to read its memory.
  const ps = spawn('pgrep', ['-P', String(child.pid)]);
  let pids = '';
  ps.stdout.on('data', (d: Buffer) => (pids += d.toString()));
  ps.on('exit', () => resolve(Number(pids.trim().split('\n')[0]) || (child.pid as number)));
});

async function send(body: Uint8Array): Promise<void> {
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

// Warm-up on a copy of the first batches is not possible without duplicating ids: the first 5 % counts as warm-up.
const warm = Math.ceil(batches.length * 0.05);
for (const b of batches.slice(0, warm)) await send(b);
let next = warm;
// The WAL's size, sampled while spans arrive: checkpoints (on their own thread) must keep it bounded.
let peakWalBytes = 0;
const walTimer = setInterval(() => {
  try {
    peakWalBytes = Math.max(peakWalBytes, statSync(join(dir, 'e2e.db-wal')).size);
  } catch {
    // not created yet
  }
}, 100);
// CPU seconds of the collector process (all its threads: HTTP, writer, checkpointer, GC helpers).
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (USER_HZ = 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const cpuStart = cpuSeconds(serverPid);
const start = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < batches.length) {
      const b = batches[next++] as Uint8Array;
      await send(b);
    }
  }),
);
const e2eSeconds = Number(process.hrtime.bigint() - start) / 1e9;
const collectorCpu = cpuSeconds(serverPid) - cpuStart;
clearInterval(walTimer);
const e2eSpans = (batches.length - warm) * BATCH;
const status = readFileSync(`/proc/${serverPid}/status`, 'utf8');
const peakRssMiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));

// ── raw: the same rows, decoded beforehand, written with the same storage code, no HTTP, no thread ──
const decoded: NormalizedSpan[][] = batches.map((b) => {
  const d = decodeProtobuf(b);
  if (!d.ok) throw new Error(d.message);
  return d.batch.spans;
});
// In-process writer: the same code the writer thread runs, called directly, one batch per transaction.
const storage = openSqliteStorage(join(dir, 'raw.db'), { writerThread: false });
for (const b of decoded.slice(0, warm)) await storage.write(b);
const rawStart = process.hrtime.bigint();
for (const b of decoded.slice(warm)) await storage.write(b);
const rawSeconds = Number(process.hrtime.bigint() - rawStart) / 1e9;
await storage.close();
rmSync(dir, { recursive: true, force: true });

const e2eRate = e2eSpans / e2eSeconds;
const rawRate = e2eSpans / rawSeconds;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);
console.log(
  `  end to end (HTTP, protobuf, ${CONCURRENCY} concurrent, acked)  ${fmt(e2eRate)} spans/s   (target ≥ 50,000)`,
);
console.log(`  raw insert, same rows and schema, no HTTP  ${fmt(rawRate)} spans/s`);
console.log(
  `  ratio end to end / raw                      ${(e2eRate / rawRate).toFixed(2).padStart(9)}        (target ≥ 0.6)`,
);
console.log(
  `  collector peak RSS                          ${peakRssMiB.toFixed(0).padStart(9)} MiB`,
);
console.log(
  `  collector CPU per span, all threads         ${((collectorCpu * 1e6) / e2eSpans).toFixed(1).padStart(9)} µs  (${(collectorCpu / e2eSeconds).toFixed(2)} of 2 cores)`,
);
console.log(
  `  peak WAL size while ingesting               ${(peakWalBytes / 2 ** 20).toFixed(0).padStart(9)} MiB`,
);
