// What the SQLite backend may take of the collector's memory limit (--memory-limit-mib): each connection's page
// cache and the writer thread's heap (threads/writer-memory.ts, as PostgreSQL's writer has). Without a limit, the
// sizes chosen for throughput (decision 0006 measured the caches' share of the resident set).
import { type WriterMemory, writerMemory } from '../threads/writer-memory.js';

export type SqliteMemory = WriterMemory & {
  /** Page cache of each connection, in KiB (SQLite's `cache_size = -N`). */
  cacheKiB: number;
  /**
   * Traces whose row number and stored span ids the writer keeps in memory (block-writer.ts). A trace's entry
   * is about 1 KB (its id, a set of eight span ids): at 50,000 the writer's live set reached 22 MiB under
   * bench:ingest, against its 32 MiB old generation at the default limit, and it spent as long collecting as
   * writing (decision 0059). A trace not kept is looked up by its index.
   */
  recentTraces: number;
};

/** Recent traces kept without a limit: enough for every trace a minute of heavy ingest opens. */
const RECENT_TRACES = 50_000;

const clamp = (n: number, low: number, high: number) =>
  Math.round(Math.min(high, Math.max(low, n)));

export function sqliteMemory(limitBytes: number | undefined): SqliteMemory {
  const writer = writerMemory(limitBytes);
  if (!limitBytes) return { ...writer, cacheKiB: 65_536, recentTraces: RECENT_TRACES };
  const mib = limitBytes / 1024 / 1024;
  // At the default 200 MiB: 4 MiB of cache per connection beside the writer's heap (threads/writer-memory.ts).
  // Under `pnpm flood` the built collector's resident set settled at 205-225 MiB with 8 MiB caches and young
  // generation, at 178-209 with these (decision 0040). A page the cache lacks is read from the OS's file cache,
  // which is not the collector's resident set.
  return {
    ...writer,
    cacheKiB: clamp((mib / 50) * 1024, 2048, 65_536),
    // 4,000 at 200 MiB: about 4 MiB of the writer's heap.
    recentTraces: clamp(mib * 20, 1_000, RECENT_TRACES),
  };
}
