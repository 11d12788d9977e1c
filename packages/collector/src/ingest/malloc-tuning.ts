// The C allocator's part of the memory limit. Node copies each chunk of an HTTP request body (up to 64 KiB)
// into a buffer from malloc, freed when a garbage collection finds it dead, and under a flood it also reads the
// body of every refused request, to keep the connection. glibc serves such buffers from a heap whose memory it
// gives back to the system only from the top (its mmap threshold starts at 128 KiB and rises to each large
// block freed), so the heap keeps the size of its busiest moment: 48-65 MiB for the HTTP thread during SQLite
// floods, and the resident set stayed at the soft limit or passed the limit. With the threshold fixed at 32 KiB,
// buffers of that size and up are mapped on their own and unmapped when freed: the heap stayed at 13-23 MiB and
// the collector acknowledged 2-4.5 times as much, for 1.4-6.6 µs more CPU per span in bench:ingest; at 64 KiB
// the peaks did not fall (docs/decisions/0072-malloc-keeps-the-flood.md). glibc reads the setting from the
// environment before Node starts, so a process cannot set it for itself: the collector's image sets it, and a
// collector started without it says how.

/** The environment the collector's image runs with (Dockerfile; `pnpm flood` runs the collector with it too). */
export const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '32768' } as const;

export type MallocContext = {
  /** `process.platform`. */
  platform: string;
  /** The glibc version Node runs on, or undefined elsewhere (musl, macOS, Windows). */
  glibc: string | undefined;
  env: Record<string, string | undefined>;
};

/** The running process's platform, C library and environment. */
export function mallocContext(): MallocContext {
  const report = process.report?.getReport() as
    | { header?: { glibcVersionRuntime?: string } }
    | undefined;
  return {
    platform: process.platform,
    glibc: report?.header?.glibcVersionRuntime,
    env: process.env,
  };
}

/**
 * What to tell the operator of a collector with a memory limit whose malloc keeps its heap's high-water mark:
 * undefined when there is nothing to say (not glibc, or the setting is there, whatever its value).
 */
export function mallocAdvice(c: MallocContext): string | undefined {
  if (c.platform !== 'linux' || c.glibc === undefined) return undefined;
  const missing = Object.keys(MALLOC_ENV).filter((name) => c.env[name] === undefined);
  if (missing.length === 0) return undefined;
  const assignments = Object.entries(MALLOC_ENV).map(([name, value]) => `${name}=${value}`);
  return (
    `glibc's malloc keeps freed request buffers in its heap: under a flood the resident set can stay at the ` +
    `memory limit or pass it. Start the collector with ${assignments.join(' ')} in its environment, as its ` +
    'container image does, for a few µs more CPU per span (docs/reliability.md, "Memory limit")'
  );
}
