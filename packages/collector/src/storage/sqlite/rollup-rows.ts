// The minute and hour rollups (per tool, and per tool and client) on SQLite's writer thread: each batch's rollups (aggregation/rollups.ts) added to
// the stored rows, in the batch's transaction. The writer is the file's only writer, so the rows it has read or
// written are kept in memory, merged: a batch upserts their new totals without reading the rows back and
// parsing their histograms again (a SELECT and three JSON parses per row per batch, before).
import type Database from 'better-sqlite3';
import {
  addSerialized,
  type Histogram,
  mergeInto,
  serialize,
} from '../../aggregation/histogram.js';
import { emptySizes, mergeSizes, type SizeAgg } from '../../aggregation/result-sizes.js';
import type { Rollup, RollupTable } from '../../aggregation/rollups.js';
import { ROLLUP_SIZES } from '../sql/output-migration.js';

/** A stored rollup row as kept: its totals. */
type Totals = { calls: number; errors: number; hist: Histogram; sizes: SizeAgg };

type StoredRow = {
  calls: number;
  errors: number;
  hist: string;
  bytes_hist: string;
  tokens_hist: string;
  max_bytes: number;
  max_tokens: number;
};

/**
 * Rows kept at most (a few minutes' and hours' worth, of the tool and the client tables); past it the cache
 * starts again from the file.
 */
const KEPT_ROWS = 8_192;

/** Each table's time column and the rest of its key, in the order `keyOf` gives their values. */
const TABLES = {
  tool_minutes: ['minute', 'tool, version, code, side'],
  tool_hours: ['hour', 'tool, version, code, side'],
  tool_client_minutes: ['minute', 'tool, version, code, side, client_name, client_version'],
  tool_client_hours: ['hour', 'tool, version, code, side, client_name, client_version'],
} as const satisfies Record<RollupTable, readonly [string, string]>;

/** A rollup's key values after its time bucket, as its table's key lists them. */
const keyOf = (r: Rollup): string[] =>
  r.table === 'tool_minutes' || r.table === 'tool_hours'
    ? [r.tool, r.version, r.code, r.side]
    : [r.tool, r.version, r.code, r.side, r.clientName, r.clientVersion];

type Statements<T> = Record<RollupTable, T>;

export class RollupRows {
  readonly #kept = new Map<string, Totals>();
  readonly #find;
  readonly #upsert;

  constructor(db: Database.Database) {
    const find = (table: RollupTable) => {
      const [time, rest] = TABLES[table];
      const where = [time, ...rest.split(', ')].map((c) => `${c} = ?`).join(' AND ');
      return db.prepare<unknown[], StoredRow>(
        `SELECT calls, errors, hist, bytes_hist, tokens_hist, max_bytes, max_tokens FROM ${table} WHERE ${where}`,
      );
    };
    // The totals replace the stored row's columns: they already hold what it stored.
    const upsert = (table: RollupTable) => {
      const [time, rest] = TABLES[table];
      const columns = `${time}, ${rest}, calls, errors, hist, ${ROLLUP_SIZES}`;
      // Named parameters, the time column's as @bucket: one set of values binds every table's statement (the
      // tool tables' leave the client's out).
      const values = columns
        .split(', ')
        .map((c) => (c === time ? '@bucket' : `@${c}`))
        .join(', ');
      return db.prepare(
        `INSERT INTO ${table} (${columns}) VALUES (${values})
         ON CONFLICT (${time}, ${rest}) DO UPDATE SET calls = excluded.calls,
           errors = excluded.errors, hist = excluded.hist, bytes_hist = excluded.bytes_hist,
           tokens_hist = excluded.tokens_hist, max_bytes = excluded.max_bytes, max_tokens = excluded.max_tokens`,
      );
    };
    const each = <T>(make: (table: RollupTable) => T): Statements<T> => ({
      tool_minutes: make('tool_minutes'),
      tool_hours: make('tool_hours'),
      tool_client_minutes: make('tool_client_minutes'),
      tool_client_hours: make('tool_client_hours'),
    });
    this.#find = each(find);
    this.#upsert = each(upsert);
  }

  /**
   * Adds a batch's rollup to its stored row (inside the batch's transaction). The values are bound by name from
   * one object, not as an array of the key's values spread: this runs for each of a batch's rollup rows, and each
   * array showed.
   */
  add(r: Rollup): void {
    const key = `${r.table}\u0000${r.bucket}\u0000${r.tool}\u0000${r.version}\u0000${r.code}\u0000${r.side}\u0000${r.clientName}\u0000${r.clientVersion}`;
    let totals = this.#kept.get(key);
    if (!totals) {
      totals = this.#read(r, keyOf(r));
      if (this.#kept.size >= KEPT_ROWS) this.#kept.clear();
      this.#kept.set(key, totals);
    }
    totals.calls += r.calls;
    totals.errors += r.errors;
    mergeInto(totals.hist, r.hist);
    mergeSizes(totals.sizes, r.sizes);
    this.#upsert[r.table].run({
      bucket: r.bucket,
      tool: r.tool,
      version: r.version,
      code: r.code,
      side: r.side,
      client_name: r.clientName,
      client_version: r.clientVersion,
      calls: totals.calls,
      errors: totals.errors,
      hist: serialize(totals.hist),
      bytes_hist: serialize(totals.sizes.bytes),
      tokens_hist: serialize(totals.sizes.tokens),
      max_bytes: totals.sizes.maxBytes,
      max_tokens: totals.sizes.maxTokens,
    });
  }

  /** After a rolled-back transaction or a retention step: what is kept may no longer be what is stored. */
  forget(): void {
    this.#kept.clear();
  }

  #read(r: Rollup, values: string[]): Totals {
    const stored = this.#find[r.table].get(r.bucket, ...values);
    const totals: Totals = { calls: 0, errors: 0, hist: new Map(), sizes: emptySizes() };
    if (!stored) return totals;
    totals.calls = stored.calls;
    totals.errors = stored.errors;
    addSerialized(totals.hist, stored.hist);
    addSerialized(totals.sizes.bytes, stored.bytes_hist);
    addSerialized(totals.sizes.tokens, stored.tokens_hist);
    totals.sizes.maxBytes = stored.max_bytes;
    totals.sizes.maxTokens = stored.max_tokens;
    return totals;
  }
}
