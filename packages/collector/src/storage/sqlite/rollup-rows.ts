// The minute and hour rollups on SQLite's writer thread: each batch's rollups (aggregation/rollups.ts) added to
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
import {
  emptySizes,
  mergeSizes,
  type SizeAgg,
  sizeColumns,
} from '../../aggregation/result-sizes.js';
import type { Rollup } from '../../aggregation/rollups.js';
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

/** Rows kept at most (a few minutes' and hours' worth); past it the cache starts again from the file. */
const KEPT_ROWS = 4_096;

const TABLES = { tool_minutes: 'minute', tool_hours: 'hour' } as const;

export class RollupRows {
  readonly #kept = new Map<string, Totals>();
  readonly #find;
  readonly #upsert;

  constructor(db: Database.Database) {
    const find = (table: keyof typeof TABLES) =>
      db.prepare<[bigint, string, string, string, string], StoredRow>(
        `SELECT calls, errors, hist, bytes_hist, tokens_hist, max_bytes, max_tokens FROM ${table}
          WHERE ${TABLES[table]} = ? AND tool = ? AND version = ? AND code = ? AND side = ?`,
      );
    // The totals replace the stored row's columns: they already hold what it stored.
    const upsert = (table: keyof typeof TABLES) =>
      db.prepare(
        `INSERT INTO ${table} (${TABLES[table]}, tool, version, code, side, calls, errors, hist, ${ROLLUP_SIZES})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (${TABLES[table]}, tool, version, code, side) DO UPDATE SET calls = excluded.calls,
           errors = excluded.errors, hist = excluded.hist, bytes_hist = excluded.bytes_hist,
           tokens_hist = excluded.tokens_hist, max_bytes = excluded.max_bytes, max_tokens = excluded.max_tokens`,
      );
    this.#find = { tool_minutes: find('tool_minutes'), tool_hours: find('tool_hours') };
    this.#upsert = { tool_minutes: upsert('tool_minutes'), tool_hours: upsert('tool_hours') };
  }

  /** Adds a batch's rollup to its stored row (inside the batch's transaction). */
  add(r: Rollup): void {
    const key = `${r.table}\u0000${r.bucket}\u0000${r.tool}\u0000${r.version}\u0000${r.code}\u0000${r.side}`;
    let totals = this.#kept.get(key);
    if (!totals) {
      totals = this.#read(r);
      if (this.#kept.size >= KEPT_ROWS) this.#kept.clear();
      this.#kept.set(key, totals);
    }
    totals.calls += r.calls;
    totals.errors += r.errors;
    mergeInto(totals.hist, r.hist);
    mergeSizes(totals.sizes, r.sizes);
    this.#upsert[r.table].run(
      r.bucket,
      r.tool,
      r.version,
      r.code,
      r.side,
      totals.calls,
      totals.errors,
      serialize(totals.hist),
      ...sizeColumns(totals.sizes),
    );
  }

  /** After a rolled-back transaction or a retention step: what is kept may no longer be what is stored. */
  forget(): void {
    this.#kept.clear();
  }

  #read(r: Rollup): Totals {
    const stored = this.#find[r.table].get(r.bucket, r.tool, r.version, r.code, r.side);
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
