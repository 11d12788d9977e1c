// `pnpm bench:ingest [-- --db postgres://… --collectors N --memory-limit-mib N]`: spans/s end to end (protobuf batches of 512 over
// loopback to `toolscope serve` processes, counted when acknowledged), beside the true reference measured in the
// same run: the same rows written with plain prepared INSERTs (SQLite) or COPY (PostgreSQL) into a minimal
// table set (reference.ts). Also each collector's peak RSS and CPU per span. Prints numbers; asserts
// nothing. With a PostgreSQL URL, the database must be empty or a Toolscope database it may add to.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runIngest } from './e2e-ingest.js';
import { ingestLines } from './ingest-lines.js';
import { makeSpans, protobufBatches } from './spans.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    collectors: { type: 'string' },
    // Passed to `toolscope serve`; 0 for no limit (the unbounded figure), unset for the collector's default.
    'memory-limit-mib': { type: 'string' },
  },
});
const TRACES = Number(process.env.BENCH_TRACES ?? 25_000); // 8 spans each
const BATCH = 512;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const COLLECTORS = Number(args.collectors ?? 1);
// BENCH_GZIP=1: the batches go gzipped, as the OpenTelemetry Collector's exporters send them by default.
const GZIP = process.env.BENCH_GZIP === '1';
const dir = mkdtempSync(join(tmpdir(), 'toolscope-bench-'));
const pgUrl = args.db ?? process.env.BENCH_DB;
if (!pgUrl && COLLECTORS > 1)
  throw new Error('several collectors need a shared --db postgres://… URL');

const t0 = Date.now();
// A seed from the clock: runs against the same PostgreSQL database never re-send ids already stored.
const spans = makeSpans(TRACES, Date.now() % 1_000_000_000);
const batches = protobufBatches(spans, BATCH);
console.log(
  `bench:ingest  node ${process.version}  ${pgUrl ? `PostgreSQL, ${COLLECTORS} collector(s)` : 'SQLite'}  ${spans.length} spans in ${batches.length} protobuf batches of ${BATCH} (${Math.round(batches.reduce((a, b) => a + b.length, 0) / batches.length / 1024)} KiB each${GZIP ? ', sent gzipped' : ''}), generated in ${Date.now() - t0} ms`,
);
const result = await runIngest({
  db: pgUrl ?? join(dir, 'e2e.db'),
  collectors: COLLECTORS,
  batches,
  batchSize: BATCH,
  concurrency: CONCURRENCY,
  scratch: dir,
  memoryLimitMib:
    args['memory-limit-mib'] === undefined ? undefined : Number(args['memory-limit-mib']),
  gzip: GZIP,
});
rmSync(dir, { recursive: true, force: true });
for (const line of ingestLines(result, CONCURRENCY)) console.log(line);
