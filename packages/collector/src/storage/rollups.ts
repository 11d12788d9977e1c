// Per-minute and per-hour rollups of a batch's calls (calls, errors, latency histogram per tool, version and
// code), which tool statistics read instead of raw calls. Built in JS by both writers; each backend adds them to
// its stored rows in the batch's transaction.
import { addTo, type Histogram, mergeInto } from './histogram.js';
import { NS_PER_HOUR, NS_PER_MINUTE } from './sql/db.js';
import { codeKey } from './tool-call.js';
import type { CallValues } from './write-plan.js';

export type Rollup = {
  table: 'tool_minutes' | 'tool_hours';
  bucket: bigint;
  tool: string;
  version: string;
  code: string;
  calls: number;
  errors: number;
  hist: Histogram;
};

/** Counts one call into its minute rollup. */
export function accumulate(rollups: Map<string, Rollup>, call: CallValues): void {
  const [, , , tool, rawVersion, , , rawCode, errorType, , errorFlag, , , , durationMs, startNs] =
    call;
  const version = rawVersion ?? '';
  const isError = errorFlag === 1;
  const code = codeKey(rawCode, errorType, isError);
  const bucket = startNs / NS_PER_MINUTE;
  const key = `${bucket}\u0000${tool}\u0000${version}\u0000${code}`;
  let r = rollups.get(key);
  if (!r) {
    r = {
      table: 'tool_minutes',
      bucket,
      tool,
      version,
      code,
      calls: 0,
      errors: 0,
      hist: new Map(),
    };
    rollups.set(key, r);
  }
  r.calls++;
  if (isError) r.errors++;
  addTo(r.hist, durationMs);
}

/** The minute rollups and the hour rollups derived from them (hours keep long ranges cheap to read). */
export function withHours(minutes: Map<string, Rollup>): Rollup[] {
  const hours = new Map<string, Rollup>();
  for (const m of minutes.values()) {
    const bucket = (m.bucket * NS_PER_MINUTE) / NS_PER_HOUR;
    const key = `${bucket}\u0000${m.tool}\u0000${m.version}\u0000${m.code}`;
    let h = hours.get(key);
    if (!h) {
      h = { ...m, table: 'tool_hours', bucket, calls: 0, errors: 0, hist: new Map() };
      hours.set(key, h);
    }
    h.calls += m.calls;
    h.errors += m.errors;
    mergeInto(h.hist, m.hist);
  }
  return [...minutes.values(), ...hours.values()];
}
