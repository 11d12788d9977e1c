// What a writer thread may take of the collector's memory limit (--memory-limit-mib), on either backend: its
// heap and the most spans one write holds. A write's spans stay alive on the writer until it commits, and every
// scavenge it goes through copies them; without an old-generation cap the thread's heap grew past what the
// limiter, which reads the resident set, could refuse in time (decisions 0063 and 0064 have the floods).
import type { ThreadHeap } from './storage-worker.js';

export type WriterMemory = {
  /** The thread's young generation, in MiB. */
  youngMb: number;
  /**
   * The size the young generation's semi-spaces start at, in MiB (under a limit: also their most, a third of
   * `youngMb`); none without a limit, where V8 grows them as it decides.
   */
  semiSpaceMb: number | undefined;
  /** The thread's old generation, in MiB: V8 collects more eagerly as it nears it. None without a limit. */
  oldMb: number | undefined;
  /** The most spans one write holds (Storage.writeSpans); none without a limit. */
  writeSpans: number | undefined;
};

/**
 * The young generation without a limit, in MiB. Each batch allocates its rows, keys and rollups and drops them
 * at commit; with the default a worker gets, they outlived scavenges and were copied. Per-thread profiles of
 * bench:storage (200,000 spans, SQLite): the writer's GC took 1.11–1.27 s with the default, 0.79 s at 32,
 * 0.59 s at 64.
 */
const YOUNG_GENERATION_MB = 64;

const clamp = (n: number, low: number, high: number) =>
  Math.round(Math.min(high, Math.max(low, n)));

/**
 * A writer's share of `limitBytes`. `oldShare`: the fraction of the limit its old generation may take (SQLite's
 * writer an eighth; PostgreSQL's a quarter, pg-storage.ts says why). `semiSpaceShare`: the fraction its
 * semi-spaces start at, as a power of two (SQLite's a fiftieth; PostgreSQL's a twenty-fifth, pg-storage.ts).
 * `spansPerMiB`: how many spans a write holds per MiB of the limit, as a power of two (SQLite's 5; PostgreSQL's
 * 10, pg-storage.ts).
 */
export function writerMemory(
  limitBytes: number | undefined,
  oldShare = 1 / 8,
  semiSpaceShare = 1 / 50,
  spansPerMiB = 5,
): WriterMemory {
  if (!limitBytes)
    return {
      youngMb: YOUNG_GENERATION_MB,
      semiSpaceMb: undefined,
      oldMb: undefined,
      writeSpans: undefined,
    };
  const mib = limitBytes / 1024 / 1024;
  // At the default 200 MiB: 4 MiB semi-spaces on SQLite (8 on PostgreSQL, pg-storage.ts), from the start (ops/heap-flags.ts says why they would not grow),
  // so that most of a 1,024-span write (about 2.5 MiB allocated on the SQLite writer) dies in the young
  // generation; in the semi-spaces V8 starts a thread with, where it scavenged every 1.1-1.3 MB, it was copied
  // and promoted, and collected again by mark-compacts. V8's
  // young generation is three semi-spaces' worth (two and the new large-object space).
  const semiSpaceMb = clamp(2 ** Math.floor(Math.log2(Math.max(1, mib * semiSpaceShare))), 1, 16);
  return {
    youngMb: 3 * semiSpaceMb,
    semiSpaceMb,
    // At 200 an eighth is 25 MiB, so 32 MiB; the SQLite writer's live set under a flood was 11-21 MiB
    // (decision 0040).
    oldMb: clamp(mib * oldShare, 32, 4096),
    // `spansPerMiB` as a power of two, 512-8,192: 1,024 at 200 on SQLite (5 per MiB), 2,048 on PostgreSQL (10,
    // whose writes fill first: pg-storage.ts, decision 0086). Joined from eight to sixteen requests,
    // writes outgrew the SQLite writer's young generation under `pnpm flood` (peaks over the limit, 2,877 spans/s
    // against 15,513 at 1,024; decision 0063); the PostgreSQL writer thread at 8,192 peaked at 1.06 of the limit
    // with 3,561 spans/s acknowledged, at 1,024 at 0.89 with 21,569 (decision 0064).
    writeSpans: Math.min(
      8192,
      Math.max(512, 2 ** Math.round(Math.log2(Math.max(1, mib * spansPerMiB)))),
    ),
  };
}

/** The thread's heap: a Worker's resource limits, and its semi-spaces' starting size. */
export function writerLimits(memory: WriterMemory): ThreadHeap {
  return {
    resourceLimits: {
      maxYoungGenerationSizeMb: memory.youngMb,
      ...(memory.oldMb ? { maxOldGenerationSizeMb: memory.oldMb } : {}),
    },
    ...(memory.semiSpaceMb ? { semiSpaceMb: memory.semiSpaceMb } : {}),
  };
}
