// Per-minute and per-hour rollups of a batch's calls (calls, errors, latency histogram and result sizes per tool,
// version, code and side, and the same per MCP client), which tool statistics read instead of raw calls. Built by the process stage for every
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

/**
 * The rollup tables: per tool, and per tool and MCP client (the client's name and version in the key, so the tool
 * page can say which clients call a tool and which of them fail, and /api/tools can count one client's calls).
 */
export type RollupTable =
  | 'tool_minutes'
  | 'tool_hours'
  | 'tool_client_minutes'
  | 'tool_client_hours';

export type Rollup = {
  table: RollupTable;
  bucket: bigint;
  tool: string;
  version: string;
  code: string;
  side: RollupSide;
  /** The client's name and version in the client tables ('' when the call named none); '' in the tool tables. */
  clientName: string;
  clientVersion: string;
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
  clientName: string | null;
  clientVersion: string | null;
};

/** Counts one call into its minute rollups of `side`: the tool's, and the tool's for its client. */
export function accumulate(
  rollups: Map<string, Rollup>,
  call: RollupInput,
  side: RollupSide,
): void {
  // Keys and rows written out: this runs twice per call on the writer, where an object per call showed.
  const bucket = call.startNs / NS_PER_MINUTE;
  const version = call.version ?? '';
  const code = codeKey(call.code, call.errorType, call.isError);
  const clientName = call.clientName ?? '';
  const clientVersion = call.clientVersion ?? '';
  const key = `${bucket}\u0000${call.tool}\u0000${version}\u0000${code}\u0000${side}`;
  let r = rollups.get(key);
  if (!r) {
    r = newRollup('tool_minutes', bucket, call.tool, version, code, side, '', '');
    rollups.set(key, r);
  }
  countInto(r, call);
  const clientKey = `${key}\u0000${clientName}\u0000${clientVersion}`;
  let c = rollups.get(clientKey);
  if (!c) {
    c = newRollup(
      'tool_client_minutes',
      bucket,
      call.tool,
      version,
      code,
      side,
      clientName,
      clientVersion,
    );
    rollups.set(clientKey, c);
  }
  countInto(c, call);
}

function newRollup(
  table: RollupTable,
  bucket: bigint,
  tool: string,
  version: string,
  code: string,
  side: RollupSide,
  clientName: string,
  clientVersion: string,
): Rollup {
  const r = { table, bucket, tool, version, code, side, clientName, clientVersion };
  return { ...r, calls: 0, errors: 0, hist: new Map(), sizes: emptySizes() };
}

function countInto(r: Rollup, call: RollupInput): void {
  r.calls++;
  if (call.isError) r.errors++;
  addTo(r.hist, call.durationMs);
  addSize(r.sizes, call.resultBytes, call.resultTokens);
}

/** The hour table of each minute table. */
const HOURS_OF = {
  tool_minutes: 'tool_hours',
  tool_client_minutes: 'tool_client_hours',
  tool_hours: 'tool_hours',
  tool_client_hours: 'tool_client_hours',
} as const satisfies Record<RollupTable, RollupTable>;

/** The minute rollups and the hour rollups derived from them (hours keep long ranges cheap to read). */
export function withHours(minutes: Map<string, Rollup>): Rollup[] {
  const hours = new Map<string, Rollup>();
  for (const m of minutes.values()) {
    const bucket = (m.bucket * NS_PER_MINUTE) / NS_PER_HOUR;
    const table = HOURS_OF[m.table];
    const key = `${table}\u0000${bucket}\u0000${m.tool}\u0000${m.version}\u0000${m.code}\u0000${m.side}\u0000${m.clientName}\u0000${m.clientVersion}`;
    let h = hours.get(key);
    if (!h) {
      h = newRollup(
        table,
        bucket,
        m.tool,
        m.version,
        m.code,
        m.side,
        m.clientName,
        m.clientVersion,
      );
      hours.set(key, h);
    }
    h.calls += m.calls;
    h.errors += m.errors;
    mergeInto(h.hist, m.hist);
    mergeSizes(h.sizes, m.sizes);
  }
  return [...minutes.values(), ...hours.values()];
}
