// The flags that bound what `serve` holds in memory (largest body, bodies in flight, spans pending, the memory
// limit), parsed in MiB and handed to the collector in bytes; the ones left unset are sized from the memory
// limit by the collector (ingest/memory-limit.ts).
import { z } from 'zod';

const bytes = (mib: number) => Math.round(mib * 1024 * 1024);

export const boundFlags = {
  'max-body-mb': z.coerce.number().min(0.001).max(1024).default(16).transform(bytes),
  'max-inflight-mb': z.coerce.number().min(0.001).max(65_536).transform(bytes).optional(),
  'max-pending-spans': z.coerce.number().int().min(1).max(100_000_000).optional(),
  'memory-limit-mib': z.coerce.number().int().min(0).max(1_048_576).default(200).transform(bytes),
};

type Bounds = z.output<z.ZodObject<typeof boundFlags>>;

/** The collector's options from the parsed flags (a memory limit of 0 is none). */
export const boundOptions = (f: Bounds) => ({
  maxBodyBytes: f['max-body-mb'],
  maxInflightBytes: f['max-inflight-mb'],
  maxPendingSpans: f['max-pending-spans'],
  memoryLimitBytes: f['memory-limit-mib'],
});
