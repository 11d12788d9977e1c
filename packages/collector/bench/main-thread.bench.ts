// `BASELINE_DIR=/path/to/a/worktree pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source
// bench/main-thread.bench.ts`: the HTTP thread's own work per span (decode a protobuf request, the default content
// policy, the process stage with packing) for this checkout and another one, loaded side by side in one process
// and run in alternating rounds, as main-thread CPU time read from /proc. Decision 0053 compared main this way on a
// loaded machine where end-to-end pairs could not. Prints numbers; asserts nothing.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeSpans, protobufBatches } from './spans.js';

type Stage = {
  decode: typeof import('../src/otlp/decode-proto.js').decodeProtobuf;
  policy: ReturnType<typeof import('../src/ingest/content-policy.js').defaultContentPolicy>;
  apply: typeof import('../src/ingest/content-policy.js').applyContentPolicy;
  process: typeof import('../src/process/batch.js').processBatch;
};

async function load(collector: string): Promise<Stage> {
  const decode = await import(join(collector, 'src/otlp/decode-proto.ts'));
  const content = await import(join(collector, 'src/ingest/content-policy.ts'));
  const batch = await import(join(collector, 'src/process/batch.ts'));
  return {
    decode: decode.decodeProtobuf,
    policy: content.defaultContentPolicy(),
    apply: content.applyContentPolicy,
    process: batch.processBatch,
  };
}

const baseline = process.env.BASELINE_DIR;
if (!baseline)
  throw new Error('BASELINE_DIR: a checkout (e.g. a detached worktree of main) to compare with');
const here = fileURLToPath(new URL('..', import.meta.url));
const stages: [string, Stage][] = [
  ['baseline', await load(join(baseline, 'packages/collector'))],
  ['this', await load(here)],
];
const batches = protobufBatches(makeSpans(Number(process.env.BENCH_TRACES ?? 3000), 11), 512);
const spans = batches.length * 512;
// This thread's CPU time in µs (utime + stime of the main thread's task, in clock ticks of 10 ms).
const cpuUs = () => {
  const fields =
    readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
const perSpan = new Map<string, number[]>(stages.map(([name]) => [name, []]));
const rounds = Number(process.env.BENCH_ROUNDS ?? 16);
for (let r = 0; r < rounds; r++)
  for (const [name, s] of r % 2 ? [...stages].reverse() : stages) {
    const start = cpuUs();
    for (const body of batches) {
      const decoded = s.decode(body);
      if (!decoded.ok) throw new Error(decoded.message);
      for (const span of decoded.batch.spans) s.apply(span, s.policy);
      s.process(decoded.batch.spans);
    }
    perSpan.get(name)?.push((cpuUs() - start) / spans);
  }
for (const [name, xs] of perSpan) {
  xs.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(8)} main-thread CPU per span: min ${xs[0]?.toFixed(2)} µs, median ${xs[xs.length >> 1]?.toFixed(2)} µs`,
  );
}
console.log(`${spans} spans a round, ${rounds} rounds; load average ${loadavg()[0]?.toFixed(2)}`);
