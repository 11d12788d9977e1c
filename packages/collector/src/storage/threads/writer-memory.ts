// What a writer thread may take of the collector's memory limit (--memory-limit-mib), on either backend: its
// heap and the most spans one write holds. A write's spans stay alive on the writer until it commits, and every
// scavenge it goes through copies them; without an old-generation cap the thread's heap grew past what the
// limiter, which reads the resident set, could refuse in time (decisions 0063 and 0064 have the floods).

export type WriterMemory = {
  /** The thread's young generation, in MiB. */
  youngMb: number;
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

export function writerMemory(limitBytes: number | undefined): WriterMemory {
  if (!limitBytes) return { youngMb: YOUNG_GENERATION_MB, oldMb: undefined, writeSpans: undefined };
  const mib = limitBytes / 1024 / 1024;
  return {
    // At the default 200 MiB: a 4 MiB young and a 32 MiB old generation; the SQLite writer's live set under a
    // flood was 11-21 MiB (decision 0040).
    youngMb: clamp(mib / 50, 4, YOUNG_GENERATION_MB),
    oldMb: clamp(mib / 8, 32, 4096),
    // About 5 spans per MiB as a power of two, 512-8,192: 1,024 at 200. Joined from eight to sixteen requests,
    // writes outgrew the SQLite writer's young generation under `pnpm flood` (peaks over the limit, 2,877 spans/s
    // against 15,513 at 1,024; decision 0063); the PostgreSQL writer thread at 8,192 peaked at 1.06 of the limit
    // with 3,561 spans/s acknowledged, at 1,024 at 0.89 with 21,569 (decision 0064).
    writeSpans: Math.min(8192, Math.max(512, 2 ** Math.round(Math.log2(Math.max(1, mib * 5))))),
  };
}

/** The thread's heap as a Worker's resource limits. */
export function writerLimits(memory: WriterMemory): {
  maxYoungGenerationSizeMb: number;
  maxOldGenerationSizeMb?: number;
} {
  return {
    maxYoungGenerationSizeMb: memory.youngMb,
    ...(memory.oldMb ? { maxOldGenerationSizeMb: memory.oldMb } : {}),
  };
}
