// `pnpm bench:proxy`: µs per tools/call from a real SDK client over stdio, straight to the server, through a bare
// byte forwarder, and through toolscope-proxy (built JavaScript, exporting OTLP to a sink in this process), in
// interleaved rounds of the same run; then the proxy's RSS while it carries 1,000 calls/s. Prints numbers only.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
// Calls each variant makes before the timed rounds: V8 keeps compiling the proxy's per-call code (on its own
// threads, counted in the proxy's CPU) for several thousand calls; the forwarder has next to nothing to compile.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5000);
const upstream = [process.execPath, here('./upstream.mjs')];
// Node flags for the proxy process only, to profile it in place (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
const PROXY_NODE_ARGS = (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter(Boolean);
// Another build's bin (e.g. a copy of an earlier dist/ and bin/ inside this package, so it resolves the same
// dependencies): a fourth variant in the same rounds, for an A/B of CPU per call under the same load.
const BASELINE = process.env.BENCH_PROXY_BASELINE;
const args = { customerId: 'cus_1', includeHistory: true };

// The OTLP sink: answers every export 200, counts the bytes (what a collector receives).
let exportedBytes = 0;
const sink = createServer((req, res) => {
  req.on('data', (c: Buffer) => {
    exportedBytes += c.length;
  });
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end();
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

type Variant = { client: Client; transport: StdioClientTransport };
async function open(command: string[]): Promise<Variant> {
  const [cmd, ...rest] = command;
  const transport = new StdioClientTransport({
    command: cmd as string,
    args: rest,
    stderr: 'ignore',
    env: { ...process.env, TOOLSCOPE_HASH_KEY: 'bench-key' } as Record<string, string>,
  });
  const client = new Client({ name: 'bench-agent', version: '1' });
  await client.connect(transport);
  await client.listTools();
  return { client, transport };
}

const proxyCommand = (bin: string) => [
  process.execPath,
  ...PROXY_NODE_ARGS,
  bin,
  '--otlp-endpoint',
  sinkUrl,
  '--log-level',
  'warn',
  '--',
  ...upstream,
];
const variants: Record<string, Variant> = {
  direct: await open(upstream),
  forwarder: await open([process.execPath, here('./forwarder.mjs'), '--', ...upstream]),
  proxy: await open(proxyCommand(here('../bin/toolscope-proxy.js'))),
  ...(BASELINE ? { baseline: await open(proxyCommand(BASELINE)) } : {}),
};

async function perCall(v: Variant, calls = CALLS): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await v.client.callTool({ name: 'get_order', arguments: args });
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}
const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

// CPU time (user + system) a process has used so far, in µs, from /proc (clock ticks of 10 ms).
const cpuUs = (pid: number | null | undefined) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

const names = Object.keys(variants);
const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const cpu: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
const variant = (n: string) => variants[n] as Variant;
const of = (n: string) => samples[n] ?? [];
const cpuPerCall = (n: string) => (cpu[n] ?? 0) / ROUNDS / CALLS;
for (const n of names) await perCall(variant(n), WARMUP);
for (let r = 0; r < ROUNDS; r++)
  for (const n of names) {
    const before = n === 'direct' ? 0 : cpuUs(variant(n).transport.pid);
    samples[n]?.push(await perCall(variant(n)));
    if (n !== 'direct') cpu[n] = (cpu[n] ?? 0) + cpuUs(variant(n).transport.pid) - before;
  }

const d = median(of('direct'));
const f = median(of('forwarder'));
const p = median(of('proxy'));
const fmt = (x: number) => x.toFixed(1).padStart(7);
console.log(
  `bench:proxy  node ${process.version}  ${ROUNDS} rounds × ${CALLS} sequential tools/call over stdio after ${WARMUP} to warm up, median µs per call`,
);
console.log(`  direct (client → server)                 ${fmt(d)} µs`);
console.log(`  bare byte forwarder                      ${fmt(f)} µs   (adds ${fmt(f - d)} µs)`);
console.log(`  toolscope-proxy                          ${fmt(p)} µs   (adds ${fmt(p - d)} µs)`);
console.log(
  `  ratio of added cost, proxy / forwarder   ${fmt((p - d) / (f - d))}   (target ≤ 1.5)`,
);
console.log(
  `  CPU of the middle process per call: forwarder ${fmt(cpuPerCall('forwarder'))} µs, proxy ${fmt(cpuPerCall('proxy'))} µs`,
);
if (BASELINE)
  console.log(
    `  baseline (${BASELINE}): ${fmt(median(of('baseline')))} µs per call, CPU ${fmt(cpuPerCall('baseline'))} µs per call`,
  );
console.log(
  `  per-round ranges: direct ${fmt(Math.min(...of('direct')))}–${Math.max(...of('direct')).toFixed(1)}, forwarder ${fmt(Math.min(...of('forwarder')))}–${Math.max(...of('forwarder')).toFixed(1)}, proxy ${fmt(Math.min(...of('proxy')))}–${Math.max(...of('proxy')).toFixed(1)}`,
);

// RSS of a proxy process at a paced 1,000 calls/s (10 calls every 10 ms, answers awaited in flight); the
// baseline's too when there is one, after the proxy's, with the same pacing.
let sent = 0;
async function paced(name: string): Promise<void> {
  const v = variant(name);
  const rssMb = () => {
    const status = readFileSync(`/proc/${v.transport.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  };
  let answered = 0;
  let peak = 0;
  const before = rssMb();
  const started = Date.now();
  const inFlight = new Set<Promise<unknown>>();
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      for (let i = 0; i < 10; i++) {
        sent++;
        const call = v.client.callTool({ name: 'get_order', arguments: args }).then(() => {
          answered++;
          inFlight.delete(call);
        });
        inFlight.add(call);
      }
      peak = Math.max(peak, rssMb());
      if (Date.now() - started >= RATE_SECONDS * 1000) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  await Promise.all(inFlight);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${name === 'proxy' ? '\n' : ''}  ${name} RSS at ${(answered / seconds).toFixed(0)} calls/s for ${seconds.toFixed(1)} s: ${before.toFixed(1)} MB before, ${peak.toFixed(1)} MB peak   (target < 80 MB)`,
  );
}
await paced('proxy');
if (BASELINE) await paced('baseline');
console.log(
  `  OTLP bytes received by the sink: ${(exportedBytes / 1024).toFixed(0)} KiB for ${sent + ROUNDS * CALLS * (BASELINE ? 2 : 1)} calls`,
);

for (const v of Object.values(variants)) await v.client.close();
sink.close();
