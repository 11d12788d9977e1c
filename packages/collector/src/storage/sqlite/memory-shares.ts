// What the SQLite backend may take of the collector's memory limit (--memory-limit-mib): each connection's page
// cache and the writer thread's heap. Without a limit, the sizes chosen for throughput (decision 0006 measured the
// caches' share of the resident set; the writer's young generation is below).

export type SqliteMemory = {
  /** Page cache of each connection, in KiB (SQLite's `cache_size = -N`). */
  cacheKiB: number;
  /** The writer thread's young generation, in MiB. */
  writerYoungMb: number;
  /** The writer thread's old generation, in MiB: V8 collects more eagerly as it nears it. None without a limit. */
  writerOldMb: number | undefined;
  /**
   * Traces whose row number and stored span ids the writer keeps in memory (block-writer.ts). A trace's entry
   * is about 1 KB (its id, a set of eight span ids): at 50,000 the writer's live set reached 22 MiB under
   * bench:ingest, against its 32 MiB old generation at the default limit, and it spent as long collecting as
   * writing (decision 0059). A trace not kept is looked up by its index.
   */
  recentTraces: number;
  /**
   * The most spans one write holds (Storage.writeSpans); none without a limit. A write's spans stay alive on the
   * writer until it commits, and every scavenge it goes through copies them: joined from eight to sixteen
   * requests they outgrew the writer's 4 MiB young generation under `pnpm flood` (peaks over the limit, 2,877
   * spans/s against 15,513 at 1,024; docs/decisions/0063-less-garbage-per-span.md).
   */
  writeSpans: number | undefined;
};

/** Recent traces kept without a limit: enough for every trace a minute of heavy ingest opens. */
const RECENT_TRACES = 50_000;

/**
 * The writer's young generation without a limit, in MiB. Each batch allocates its rows, keys and rollups and
 * drops them at commit; with the default a worker gets, they outlived scavenges and were copied. Per-thread
 * profiles of bench:storage (200,000 spans): the writer's GC took 1.11–1.27 s with the default, 0.79 s at 32,
 * 0.59 s at 64.
 */
const WRITER_YOUNG_GENERATION_MB = 64;

const clamp = (n: number, low: number, high: number) =>
  Math.round(Math.min(high, Math.max(low, n)));

export function sqliteMemory(limitBytes: number | undefined): SqliteMemory {
  if (!limitBytes)
    return {
      cacheKiB: 65_536,
      writerYoungMb: WRITER_YOUNG_GENERATION_MB,
      writerOldMb: undefined,
      recentTraces: RECENT_TRACES,
      writeSpans: undefined,
    };
  const mib = limitBytes / 1024 / 1024;
  // At the default 200 MiB: 4 MiB of cache per connection, a 4 MiB young and a 32 MiB old generation for the
  // writer, whose live set under a flood was 11-21 MiB. Under `pnpm flood` the built collector's resident set
  // settled at 205-225 MiB with 8 MiB caches and young generation, at 178-209 with these (decision 0040).
  // A page the cache lacks is read from the OS's file cache, which is not the collector's resident set.
  return {
    cacheKiB: clamp((mib / 50) * 1024, 2048, 65_536),
    writerYoungMb: clamp(mib / 50, 4, WRITER_YOUNG_GENERATION_MB),
    writerOldMb: clamp(mib / 8, 32, 4096),
    // 4,000 at 200 MiB: about 4 MiB of the writer's heap.
    recentTraces: clamp(mib * 20, 1_000, RECENT_TRACES),
    // About 5 spans per MiB as a power of two, 512-8,192: 1,024 at 200.
    writeSpans: Math.min(8192, Math.max(512, 2 ** Math.round(Math.log2(Math.max(1, mib * 5))))),
  };
}
