// `pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source bench/write-path.bench.ts`: the
// SQLite write path alone, without HTTP or protobuf (decision 0013). The bench:storage workload, decoded up
// front, written through the storage as `serve` opens it (writer thread, 16 writes in flight), beside the true
// reference of bench:ingest (plain prepared INSERTs of the same rows, median of three) in the same run. Prints
// spans per second, the ratio, and the process's CPU per span over all threads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import { processBatch } from '../src/process/batch.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { writeStagesSource } from '../src/write-stages.js';
import { refRows, sqliteReference } from './reference.js';
import { makeSpans, protobufBatches } from './spans.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 25_000);
const batches = [...protobufBatches(makeSpans(TRACES), 512)].map((body) => {
  const r = decodeProtobuf(body);
  if (!r.ok) throw new Error(r.message);
  return r.batch.spans;
});
const spans = batches.reduce((n, b) => n + b.length, 0);
const dir = mkdtempSync(join(tmpdir(), 'toolscope-write-path-'));
try {
  const storage = openSqliteStorage(join(dir, 'store.db'), { stages: writeStagesSource() });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < batches.length) await storage.write(processBatch(batches[next++] ?? []));
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  await storage.close();
  const rows = refRows(batches);
  const refs = [1, 2, 3]
    .map((i) => sqliteReference(join(dir, `ref-${i}.db`), rows))
    .sort((a, b) => a - b);
  const reference = refs[1] as number;
  const rate = spans / seconds;
  console.log(`write-path  node ${process.version}  ${spans} spans in ${batches.length} batches`);
  console.log(`  storage.write, 16 in flight        ${rate.toFixed(0).padStart(8)} spans/s`);
  console.log(
    `  reference (median of ${refs.map((r) => r.toFixed(0)).join(', ')})  ${reference.toFixed(0).padStart(8)} spans/s`,
  );
  console.log(`  ratio                              ${(rate / reference).toFixed(2).padStart(8)}`);
  console.log(
    `  CPU per span, all threads          ${((cpu.user + cpu.system) / spans).toFixed(1).padStart(8)} µs`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
