// The one thing the shared read queries need from a backend: run SQL with `?` placeholders and return rows.
// Both backends keep the same tables and columns (storage/sqlite/schema.ts, storage/postgres/migrations.ts),
// so each read query is written once. Drivers return integers differently (better-sqlite3 bigint, pg bigint
// or string, SUMs as numeric strings): rows are read through the converters below, never cast.

export type SqlValue = string | number | bigint | null;
export type Row = Record<string, unknown>;

export interface ReadDb {
  all(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /**
   * Told when a stored value cannot be read (a block that is not JSON, a malformed histogram): the answer
   * leaves it out, and the backend logs it, so damage never passes silently.
   */
  damaged(what: string): void;
  /**
   * A text column compared in byte order, whatever the database's collation (`call_id COLLATE "C"` on
   * PostgreSQL): prefix ranges over an index are only prefixes in that order.
   */
  byteOrder(column: string): string;
  /** `column` matching any row of `subquery`, as this database plans it well (in-rows.ts). */
  inRows(column: string, subquery: string): string;
}

/** An integer or float column as a number (0 for null or garbage). */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}

/** An integer column as a bigint (nanosecond times, minute and hour numbers). */
export function big(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v));
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return 0n;
}

export function text(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v);
}

export function textOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : text(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

export { NS_PER_HOUR, NS_PER_MINUTE } from '../../aggregation/rollups.js';
