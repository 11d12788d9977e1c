// COPY … FROM STDIN in PostgreSQL's text format, for the tables every batch appends many rows to (span_blocks,
// tool_call_rows): measured 1.3–1.6× the rate of a multi-row INSERT … SELECT unnest(…) of the same rows
// (docs/decisions/0007). A batch's few model calls go as parameters instead, as a COPY costs a second round trip
// (docs/decisions/0031). Rows are plain appends under the batch's trace locks, so nothing needs ON CONFLICT.
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export type Cell = string | number | bigint | Uint8Array | null | undefined;

// The characters the text format reserves; most values have none, and a test is cheaper than a replace.
const RESERVED = /[\\\t\n\r]/;
const RESERVED_ALL = /[\\\t\n\r]/g;
const escapeReserved = (c: string) =>
  c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r';

/**
 * A value in COPY text format: \N for null, backslash escapes for the characters the format reserves, bytes in
 * bytea's hex form (`\x…`, its backslash escaped).
 */
export function copyCell(v: Cell): string {
  if (typeof v === 'string') return RESERVED.test(v) ? v.replace(RESERVED_ALL, escapeReserved) : v;
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
}

/**
 * The rows as COPY text, one line each. Built by appending to one string: a joined array per row and per batch
 * cost twice the CPU (1.6–2.0 against 0.7–0.9 µs per span for a batch's call rows and blocks, decision 0030).
 */
export function copyText(rows: readonly (readonly Cell[])[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) text += '\t';
      text += copyCell(row[i]);
    }
    text += '\n';
  }
  return text;
}

export async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: string,
  rows: Cell[][],
): Promise<void> {
  if (rows.length === 0) return;
  // One write and the end, without a Readable and a pipeline around it: the rows are already one string.
  const stream = client.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`));
  stream.end(copyText(rows));
  await finished(stream);
}
