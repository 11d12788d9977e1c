// Per-minute and per-hour rollups of a batch's calls (calls, errors, latency histogram and result sizes per tool,
// version, code and side, and the same per MCP client), which tool statistics read instead of raw calls. Built by the process stage for every
// backend; each backend adds them to its stored rows in the batch's transaction.

import { codeKey } from '../calls/code.js';
import { addTo, type Histogram, mergeInto } from './histogram.js';
import { addSize, copySizes, emptySizes, mergeSizes, type SizeAgg } from './result-sizes.js';

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

/** Each side's place in a numeric key. */
const SIDE_INDEX: Record<RollupSide, number> = {
  server: 0,
  client: 1,
  paired: 2,
  proxied: 3,
  joined: 4,
};
/** Distinct values of one key field, and distinct minutes, a batch's numeric keys hold. */
const IDS = 256;
const MINUTES = 64;

/**
 * A batch's minute rollups, by key. `add` runs for every call on the writer thread (twice for a paired one), and
 * the two string keys it built per call were about a tenth of what that thread allocated (a sampling heap
 * profile of bench:ingest): here a key is a number made of each field's index among the batch's values (minute,
 * side, tool, version and code; then the client's name and version), below 2^49 so exact as a double. A key
 * whose values pass those indexes (more than 256 tools in a batch, say) is the string it was, every time the
 * same one, so each rollup still has one key.
 */
export class MinuteRollups {
  readonly #rows = new Map<number | string, Rollup>();
  /** Ids of the tools, versions, codes, client names and client versions seen, in that order. */
  readonly #ids: Map<string, number>[] = [new Map(), new Map(), new Map(), new Map(), new Map()];
  readonly #minutes: bigint[] = [];
  /** The last call's minute and its range: most calls of a batch share one, and the division is skipped. */
  #fromNs = 1n;
  #untilNs = 0n;
  #minute = 0n;
  #ordinal = 0;

  values(): IterableIterator<Rollup> {
    return this.#rows.values();
  }

  /** Counts one call into its minute rollups of `side`: the tool's, and the tool's for its client. */
  add(call: RollupInput, side: RollupSide): void {
    const startNs = call.startNs;
    if (startNs < this.#fromNs || startNs >= this.#untilNs) this.#toMinute(startNs);
    const bucket = this.#minute;
    const version = call.version ?? '';
    const code = codeKey(call.code, call.errorType, call.isError);
    const clientName = call.clientName ?? '';
    const clientVersion = call.clientVersion ?? '';
    const tool = this.#id(0, call.tool);
    const v = this.#id(1, version);
    const c = this.#id(2, code);
    const numeric = this.#ordinal < MINUTES && (tool | v | c) < IDS;
    const key = numeric
      ? (((this.#ordinal * 8 + SIDE_INDEX[side]) * IDS + tool) * IDS + v) * IDS + c
      : `${bucket}\u0000${call.tool}\u0000${version}\u0000${code}\u0000${side}`;
    let r = this.#rows.get(key);
    if (!r) {
      r = newRollup('tool_minutes', bucket, call.tool, version, code, side, '', '');
      this.#rows.set(key, r);
    }
    countInto(r, call);
    const n = this.#id(3, clientName);
    const cv = this.#id(4, clientVersion);
    // Negative: no client key equals a tool key.
    const clientKey =
      typeof key === 'number' && (n | cv) < IDS
        ? -((key * IDS + n) * IDS + cv) - 1
        : `${bucket}\u0000${call.tool}\u0000${version}\u0000${code}\u0000${side}\u0000${clientName}\u0000${clientVersion}`;
    let k = this.#rows.get(clientKey);
    if (!k) {
      k = newRollup(
        'tool_client_minutes',
        bucket,
        call.tool,
        version,
        code,
        side,
        clientName,
        clientVersion,
      );
      this.#rows.set(clientKey, k);
    }
    countInto(k, call);
  }

  #id(field: number, value: string): number {
    const ids = this.#ids[field] as Map<string, number>;
    let id = ids.get(value);
    if (id === undefined) {
      id = ids.size;
      ids.set(value, id);
    }
    return id;
  }

  #toMinute(startNs: bigint): void {
    const minute = startNs / NS_PER_MINUTE;
    this.#minute = minute;
    this.#fromNs = minute * NS_PER_MINUTE;
    this.#untilNs = this.#fromNs + NS_PER_MINUTE;
    let ordinal = this.#minutes.indexOf(minute);
    if (ordinal < 0) ordinal = this.#minutes.push(minute) - 1;
    this.#ordinal = ordinal;
  }
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

/**
 * The minute rollups and the hour rollups derived from them (hours keep long ranges cheap to read). An hour made
 * of one minute shares that minute's histograms, which nothing changes once made (the writers read them into
 * their own rows): most batches fall in one minute, and the copies were a twentieth of the writer's allocation.
 */
export function withHours(minutes: MinuteRollups): Rollup[] {
  const hours = new Map<string, Rollup>();
  /** Hours whose histograms are still their one minute's. */
  const sharing = new Set<Rollup>();
  for (const m of minutes.values()) {
    const bucket = (m.bucket * NS_PER_MINUTE) / NS_PER_HOUR;
    const table = HOURS_OF[m.table];
    const key = `${table}\u0000${bucket}\u0000${m.tool}\u0000${m.version}\u0000${m.code}\u0000${m.side}\u0000${m.clientName}\u0000${m.clientVersion}`;
    const h = hours.get(key);
    if (!h) {
      // The minute's row in its hour: its counts, and its histograms shared until a second minute joins.
      const hour: Rollup = { ...m, table, bucket };
      hours.set(key, hour);
      sharing.add(hour);
      continue;
    }
    if (sharing.delete(h)) {
      h.hist = new Map(h.hist);
      h.sizes = copySizes(h.sizes);
    }
    h.calls += m.calls;
    h.errors += m.errors;
    mergeInto(h.hist, m.hist);
    mergeSizes(h.sizes, m.sizes);
  }
  return [...minutes.values(), ...hours.values()];
}
