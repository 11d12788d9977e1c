// The end-to-end ingest run shared by bench:ingest and bench:storage: real `toolscope serve` processes, protobuf
// batches over loopback (counted when acknowledged), then the true reference of the same rows (reference.ts)
// measured in the same run. Returns the numbers; the scripts print them.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { LoadGenerator } from './load-generator.js';
import { autovacuumRuns, settleAfterCollectors } from './pg-phases.js';
import { postmasterOf, serverCpuSeconds } from './pg-server-cpu.js';
import { postgresReference, refRows, sqliteReference } from './reference.js';

export type IngestOptions = {
  /** A SQLite file or a PostgreSQL URL the collectors share. */
  db: string;
  collectors: number;
  batches: Uint8Array[];
  batchSize: number;
  concurrency: number;
  /** A folder for the SQLite reference database. */
  scratch: string;
  /** Runs after the collectors stopped and before the reference writes (bench:storage measures sizes here). */
  afterIngest?: () => Promise<void>;
  /** `toolscope serve --memory-limit-mib` (0: none); unset, the collector's default. */
  memoryLimitMib?: number | undefined;
  /**
   * Sends the batches gzipped (compressed before the timed run), as the OpenTelemetry Collector's OTLP exporters
   * do by default: the collector's inflating is then counted, the reference's rows stay the same.
   */
  gzip?: boolean;
};

export type IngestResult = {
  rate: number;
  /** Spans counted (after the warm-up). */
  spans: number;
  reference: { label: string; rate: number };
  /** PostgreSQL only: the multi-row INSERT rate, printed beside COPY. */
  insertRate: number | undefined;
  rssMiB: number[];
  cpuPerSpanUs: number;
  /** CPU per span of each thread of the first collector (1 µs or more), busiest first. */
  threadUs: { main: boolean; us: number }[];
  cores: number;
  /**
   * A local PostgreSQL server's CPU per span (µs, all its processes) while the collectors ran, and while the COPY
   * reference ran beside the reference's own client CPU (pg-server-cpu.ts).
   */
  server?: {
    collectorRun: number;
    copy: number;
    copyClient: number;
    /** Tables autovacuum vacuumed or analyzed during the collectors' run (pg-phases.ts). */
    autovacuums: number;
    /** The server's CPU per span for the VACUUM ANALYZE and checkpoint after that run, not in its time. */
    settle: number;
  };
  /**
   * This process's CPU per span while it sent the batches: the load generator's cost, which shares the machine's
   * cores with the collector and the server as the reference's own client does.
   */
  senderUs: number;
  /** Requests answered 429 or 503 (sent again after 50 ms): the memory limit and the queue's bound at work. */
  refused: number;
  /** The machine's 1-minute load average at the end of the timed run, and the memory limit it ran with. */
  load: number;
  memoryLimit: string;
};

// The collector as a user runs it: the package's bin on the built dist/ (decision 0053). Under tsx, from
// sources, the process took about 70 MiB more, which the memory limit then counted against the collector.
const bin = fileURLToPath(new URL('../bin/toolscope.js', import.meta.url));
const built = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const isPg = (db: string) => /^postgres(ql)?:\/\//i.test(db);

async function serve(
  db: string,
  memoryLimitMib: number | undefined,
): Promise<{ child: ChildProcess; url: string; pid: number }> {
  const child = spawn(
    process.execPath,
    [
      // BENCH_PROFILE_DIR=dir: a V8 CPU profile of each collector thread, to see where its time goes.
      ...(process.env.BENCH_PROFILE_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
        : []),
      // BENCH_NODE_ARGS: V8 flags NODE_OPTIONS refuses (--trace-gc, --trace-opt, --no-parallel-scavenge), as
      // arguments of the collector's node; what they print to stdout goes to BENCH_NODE_ARGS_LOG when set.
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      bin,
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--grpc-port',
      '0',
      ...(memoryLimitMib === undefined ? [] : ['--memory-limit-mib', String(memoryLimitMib)]),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      // The limit is the flag's (or serve's default), never one left in the environment. BENCH_NODE_OPTIONS: V8
      // or Node options for the collector alone (e.g. --report-on-signal), as pnpm flood's FLOOD_NODE_OPTIONS.
      env: {
        ...process.env,
        TOOLSCOPE_MEMORY_LIMIT_MIB: '',
        NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? '',
      },
    },
  );
  let out: string | undefined = '';
  const url = await new Promise<string>((resolve) => {
    const log = process.env.BENCH_NODE_ARGS_LOG;
    child.stdout?.on('data', (d: Buffer) => {
      if (log) appendFileSync(log, d);
      // Only the start's lines are searched: a traced collector (--trace-gc) writes to stdout all run long.
      if (out === undefined) return;
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        out = undefined;
        resolve(m[1]);
      }
    });
  });
  return { child, url, pid: child.pid as number };
}

// CPU seconds of a process (all its threads), from /proc: utime + stime in clock ticks (USER_HZ = 100).
const cpuSeconds = (pid: number): number => cpuSecondsAt(`/proc/${pid}/stat`);

/** utime + stime of a /proc `stat` file (a process's, or one thread's under task/). */
function cpuSecondsAt(path: string): number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of each thread of a process, by thread id (the main thread's id is the process's). */
function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), cpuSecondsAt(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

export async function runIngest(o: IngestOptions): Promise<IngestResult> {
  const { batches } = o;
  const wire = o.gzip ? batches.map((b) => gzipSync(b)) : batches;
  if (!existsSync(built))
    throw new Error('bench:ingest runs the built collector: run `pnpm build` first');
  const servers = await Promise.all(
    Array.from({ length: o.collectors }, () => serve(o.db, o.memoryLimitMib)),
  );
  const sender = new LoadGenerator({ gzip: o.gzip ?? false });
  // The first 5 % warm up (JIT, caches, pool connections) and are not counted.
  const warm = Math.ceil(batches.length * 0.05);
  for (let i = 0; i < warm; i++)
    await sender.send(servers[i % o.collectors]?.url ?? '', wire[i] as Uint8Array);
  let next = warm;
  const postmaster = isPg(o.db) ? await postmasterOf(o.db) : undefined;
  const serverCpu = () => (postmaster === undefined ? Number.NaN : serverCpuSeconds(postmaster));
  const autovacuumsBefore = postmaster === undefined ? 0 : await autovacuumRuns(o.db);
  const serverStart = serverCpu();
  const cpuStart = servers.map((s) => cpuSeconds(s.pid));
  const firstPid = servers[0]?.pid ?? 0;
  const threadsStart = threadCpuSeconds(firstPid);
  const start = process.hrtime.bigint();
  const senderStart = process.cpuUsage();
  sender.refused = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, worker) => {
      const url = servers[worker % o.collectors]?.url ?? '';
      while (next < wire.length) await sender.send(url, wire[next++] as Uint8Array);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const senderCpu = process.cpuUsage(senderStart);
  const load = loadavg()[0] as number;
  const cpu = servers.reduce((n, s, i) => n + cpuSeconds(s.pid) - (cpuStart[i] ?? 0), 0);
  const serverRun = serverCpu() - serverStart;
  const autovacuums =
    postmaster === undefined ? 0 : (await autovacuumRuns(o.db)) - autovacuumsBefore;
  const spans = (batches.length - warm) * o.batchSize;
  // Per thread of the first collector, busiest first: which of the HTTP thread and the storage threads is the
  // bottleneck (threads are not named on Node 20; the main thread's id is the process's).
  const threads = [...threadCpuSeconds(firstPid)]
    .map(([tid, s]) => ({
      main: tid === firstPid,
      us: ((s - (threadsStart.get(tid) ?? 0)) * 1e6) / (spans / o.collectors),
    }))
    .filter((t) => t.us >= 1)
    .sort((a, b) => b.us - a.us);
  const rssMiB = servers.map(
    (s) =>
      Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
  );
  // Its connections closed by this side, before the collectors' shutdown.
  sender.close();
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => s.child.on('exit', r))));
  await o.afterIngest?.();
  // The collectors' writes may still sit in the page cache as dirty pages: flushed now, so that the kernel's
  // writeback of them does not slow the reference down. Without this, references run after a 4.5x larger store
  // were 6 % slower on average (decision 0014).
  execFileSync('sync');
  // On PostgreSQL, the same for the server's dirty buffers and the collectors' autovacuum (pg-phases.ts).
  const settleStart = serverCpu();
  if (isPg(o.db)) await settleAfterCollectors(o.db);
  const settle = serverCpu() - settleStart;

  // The reference: the same rows, decoded beforehand, plain INSERTs (or COPY) into a minimal table set.
  const decoded: NormalizedSpan[][] = batches.map((b) => {
    const d = decodeProtobuf(b);
    if (!d.ok) throw new Error(d.message);
    return d.batch.spans;
  });
  const rows = refRows(decoded.slice(warm));
  const pg = isPg(o.db);
  // The reference is the median of three runs (into fresh files, or fresh tables): a single run spread 42k-56k
  // spans/s on SQLite and 57k-86k on PostgreSQL on the shared machine, more than the differences the ratio is
  // read for.
  const runs: number[] = [];
  const refServerStart = serverCpu();
  const refClientStart = process.cpuUsage();
  for (let n = 1; n <= 3; n++)
    runs.push(
      pg
        ? await postgresReference(o.db, rows, 'copy')
        : sqliteReference(join(o.scratch, `ref-${n}.db`), rows),
    );
  const refServer = serverCpu() - refServerStart;
  const refClientUs = process.cpuUsage(refClientStart);
  const refSpans = 3 * rows.reduce((n, b) => n + b.length, 0);
  runs.sort((a, b) => a - b);
  const refRate = runs[1] as number;
  const insertRate = pg ? await postgresReference(o.db, rows, 'insert') : undefined;
  const median = `median of ${runs.map((r) => Math.round(r).toLocaleString('en-US')).join(', ')}`;
  return {
    rate: spans / seconds,
    spans,
    reference: {
      label: pg ? `COPY (${median})` : `plain prepared INSERTs (${median})`,
      rate: refRate,
    },
    insertRate,
    rssMiB,
    cpuPerSpanUs: (cpu * 1e6) / spans,
    threadUs: threads,
    cores: cpu / seconds,
    ...(postmaster === undefined
      ? {}
      : {
          server: {
            collectorRun: (serverRun * 1e6) / spans,
            copy: (refServer * 1e6) / refSpans,
            copyClient: (refClientUs.user + refClientUs.system) / refSpans,
            autovacuums,
            settle: (settle * 1e6) / spans,
          },
        }),
    senderUs: (senderCpu.user + senderCpu.system) / spans,
    refused: sender.refused,
    load,
    memoryLimit:
      o.memoryLimitMib === undefined
        ? 'default'
        : o.memoryLimitMib === 0
          ? 'none'
          : `${o.memoryLimitMib} MiB`,
  };
}
