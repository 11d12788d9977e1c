// The C allocator's part of the memory limit. Node copies each chunk of an HTTP request body (up to 64 KiB)
// into a buffer from malloc, freed when a garbage collection finds it dead, and under a flood it also reads the
// body of every refused request, to keep the connection. glibc serves such buffers from a heap whose memory it
// gives back to the system only from the top (its mmap threshold starts at 128 KiB and rises to each large
// block freed), so the heap keeps the size of its busiest moment: 48-65 MiB for the HTTP thread during SQLite
// floods, and the resident set stayed at the soft limit or passed the limit. With the threshold fixed at 32 KiB,
// buffers of that size and up are mapped on their own and unmapped when freed: the heap stayed at 13-23 MiB and
// the collector acknowledged 2-4.5 times as much as the bare run beside it in four pairs, for 1.4-6.6 µs (up to
// a fifth) more CPU per span in bench:ingest; at 64 KiB the peaks did not fall
// (docs/decisions/0072-malloc-keeps-the-flood.md). glibc reads the setting from the environment before Node
// starts, so a process cannot set it for itself: the collector's image sets it, and a collector started without
// it says how.

import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** The environment the collector's image runs with (Dockerfile; `pnpm flood` runs the collector with it too). */
export const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '32768' } as const;

export type MallocContext = {
  /** `process.platform`. */
  platform: string;
  /** Whether glibc is this process's C library (not musl, not another platform's). */
  glibc: boolean;
  env: Record<string, string | undefined>;
};

/**
 * The running process's platform, C library and environment. glibc is told by its shared object in the
 * process's own mappings: `process.report.getReport()` also says it, but resolves every open socket's
 * addresses first, which can block the start for seconds without reverse DNS.
 */
export function mallocContext(): MallocContext {
  let glibc = false;
  if (process.platform === 'linux') {
    try {
      glibc = /\/libc\.so\.6$/m.test(readFileSync('/proc/self/maps', 'utf8'));
    } catch {
      // No /proc: nothing to say.
    }
  }
  return { platform: process.platform, glibc, env: process.env };
}

/** Another allocator preloaded, or glibc's tunables setting the threshold: the variable would change nothing. */
const OTHER_ALLOCATOR = /jemalloc|tcmalloc|mimalloc/;
const TUNED = /glibc\.malloc\.mmap_threshold=/;

/**
 * What to tell the operator of a collector with a memory limit whose malloc keeps its heap's high-water mark:
 * undefined when there is nothing to say (not glibc, another allocator preloaded, or the threshold set,
 * whatever its value).
 */
export function mallocAdvice(c: MallocContext): string | undefined {
  if (c.platform !== 'linux' || !c.glibc) return undefined;
  if (OTHER_ALLOCATOR.test(c.env.LD_PRELOAD ?? '') || TUNED.test(c.env.GLIBC_TUNABLES ?? ''))
    return undefined;
  if (Object.keys(MALLOC_ENV).every((name) => c.env[name])) return undefined;
  const assignments = Object.entries(MALLOC_ENV).map(([name, value]) => `${name}=${value}`);
  return (
    `glibc's malloc keeps freed request buffers in its heap: under a flood the resident set can stay at the ` +
    `memory limit or pass it. Start the collector with ${assignments.join(' ')} in its environment, as its ` +
    'container image does, for up to a fifth more CPU per span (docs/reliability.md, "Memory limit")'
  );
}

/** Logs the advice, if any, once (at start). */
export function logMallocAdvice(log: Logger, limitBytes: number, c: MallocContext): void {
  const advice = mallocAdvice(c);
  if (advice) log.info({ limitMiB: Math.round(limitBytes / 1024 / 1024) }, advice);
}
