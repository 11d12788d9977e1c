// Per-minute and per-hour rollups of a batch's calls (calls, errors, latency histogram and result sizes per tool,
// version, code and side), which tool statistics read instead of raw calls. Built by the process stage for every
// backend; each backend adds them to its stored rows in the batch's transaction.

import { codeKey } from '../calls/code.js';
import { addTo, type Histogram, mergeInto } from './histogram.js';
import { addSize, emptySizes, mergeSizes, type SizeAgg } from './result-sizes.js';

export const NS_PER_MINUTE = 60_000_000_000n;
export const NS_PER_HOUR = 60n * NS_PER_MINUTE;

/**
 * The sides a rollup row counts (calls/sides.ts defines a call's side): server and client rows, and the rows
 * taken back out for `any`: `paired` (client calls that also have a server row) and `proxied` (proxy rows that
 * have a server row below), and out of `any` and `server`: `joined` (a row counted before it became a part of
 * another row's call, or a call's values before later parts extended it: calls/logical-join.ts), so
 * any = server + client − paired − proxied − joined (storage/call-side.ts reads them).
 */
export type RollupSide = 'server' | 'client' | 'paired' | 'proxied' | 'joined';

export type Rollup = {
  table: 'tool_minutes' | 'tool_hours';
  bucket: bigint;
  tool: string;
  version: string;
  code: string;
  side: RollupSide;
  calls: number;
  errors: number;
  hist: Histogram;
  sizes: SizeAgg;
};

/** The columns of a call a rollup reads: from a new call's values or from a stored row. */
export type RollupInput = {
  tool: string;
  version: string | null;
  code: string | null;
  errorType: string | null;
  isError: boolean;
  durationMs: number;
  startNs: bigint;
  resultBytes: number | null;
  resultTokens: number | null;
};

/** Counts one call into its minute rollup of `side`. */
export function accumulate(
  rollups: Map<string, Rollup>,
  call: RollupInput,
  side: RollupSide,
): void {
  const { tool, isError, durationMs, startNs } = call;
  const version = call.version ?? '';
  const code = codeKey(call.code, call.errorType, isError);
  const bucket = startNs / NS_PER_MINUTE;
  const key = `${bucket}\u0000${tool}\u0000${version}\u0000${code}\u0000${side}`;
  let r = rollups.get(key);
  if (!r) {
    r = {
      table: 'tool_minutes',
      bucket,
      tool,
      version,
      code,
      side,
      calls: 0,
      errors: 0,
      hist: new Map(),
      sizes: emptySizes(),
    };
    rollups.set(key, r);
  }
  r.calls++;
  if (isError) r.errors++;
  addTo(r.hist, durationMs);
  addSize(r.sizes, call.resultBytes, call.resultTokens);
}

/** The minute rollups and the hour rollups derived from them (hours keep long ranges cheap to read). */
export function withHours(minutes: Map<string, Rollup>): Rollup[] {
  const hours = new Map<string, Rollup>();
  for (const m of minutes.values()) {
    const bucket = (m.bucket * NS_PER_MINUTE) / NS_PER_HOUR;
    const key = `${bucket}\u0000${m.tool}\u0000${m.version}\u0000${m.code}\u0000${m.side}`;
    let h = hours.get(key);
    if (!h) {
      h = {
        ...m,
        table: 'tool_hours',
        bucket,
        calls: 0,
        errors: 0,
        hist: new Map(),
        sizes: emptySizes(),
      };
      hours.set(key, h);
    }
    h.calls += m.calls;
    h.errors += m.errors;
    mergeInto(h.hist, m.hist);
    mergeSizes(h.sizes, m.sizes);
  }
  return [...minutes.values(), ...hours.values()];
}
