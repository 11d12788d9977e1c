// The lines bench:ingest and bench:storage print for an end-to-end run (e2e-ingest.ts).
import type { IngestResult } from './e2e-ingest.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);

/** The lines bench:ingest has always printed for a run. */
export function ingestLines(r: IngestResult, concurrency: number): string[] {
  return [
    `  end to end (HTTP, protobuf, ${concurrency} concurrent, acked)  ${fmt(r.rate)} spans/s`,
    `  reference: ${r.reference.label} of the same rows into minimal tables  ${fmt(r.reference.rate)} spans/s`,
    ...(r.insertRate === undefined
      ? []
      : [`  (multi-row INSERT of the same rows, for comparison  ${fmt(r.insertRate)} spans/s)`]),
    `  ratio end to end / reference                 ${(r.rate / r.reference.rate).toFixed(2).padStart(9)}`,
    `  collector peak RSS                           ${r.rssMiB
      .map((x) => x.toFixed(0))
      .join(', ')
      .padStart(9)} MiB`,
    `  collector CPU per span, all threads          ${r.cpuPerSpanUs.toFixed(1).padStart(9)} µs  (${r.cores.toFixed(2)} of 2 cores)`,
    `  by thread, busiest first (µs per span)      ${r.threadUs.map((t) => `${t.main ? 'HTTP ' : ''}${t.us.toFixed(1)}`).join(', ')}`,
    ...(r.server === undefined
      ? []
      : [
          `  PostgreSQL server CPU per span, all processes ${r.server.collectorRun.toFixed(1).padStart(8)} µs  (COPY reference: server ${r.server.copy.toFixed(1)} µs, its client ${r.server.copyClient.toFixed(1)} µs)`,
          `  autovacuum during the collector's run          ${String(r.server.autovacuums).padStart(8)} tables  (then VACUUM ANALYZE and a checkpoint, untimed: server ${r.server.settle.toFixed(1)} µs per span)`,
        ]),
    `  load generator (this process) CPU per span  ${r.senderUs.toFixed(1).padStart(9)} µs`,
    `  memory limit ${r.memoryLimit}; requests refused and sent again ${r.refused}; load average ${r.load.toFixed(2)}`,
  ];
}
