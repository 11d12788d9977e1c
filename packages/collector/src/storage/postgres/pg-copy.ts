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

/** The most bytes of COPY text a cell can take, and the separator after it. */
function cellBound(v: Cell): number {
  if (typeof v === 'string') return v.length * 3 + 1; // a UTF-16 unit is at most 3 bytes, an escape 2
  if (v === null || v === undefined) return 3;
  if (typeof v === 'number' || typeof v === 'bigint') return 33;
  return v.byteLength * 2 + 4;
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * The rows as COPY text, one line each, written as UTF-8 straight into one buffer: the text was built by
 * appending to one string (decision 0030), then made bytes again to be sent, and with each block's bytes as a hex
 * string in between it was a tenth of what a PostgreSQL collector allocated per span
 * (docs/decisions/0063-less-garbage-per-span.md). The buffer is the COPY's own: COPYs of concurrent writes
 * run at once.
 */
export function copyBytes(rows: readonly (readonly Cell[])[]): Buffer {
  let bound = 0;
  for (const row of rows) for (let i = 0; i < row.length; i++) bound += cellBound(row[i]);
  const out = Buffer.allocUnsafe(bound + rows.length);
  let at = 0;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out[at++] = 0x09; // \t
      const v = row[i];
      if (v instanceof Uint8Array) {
        at += out.write('\\\\x', at, 'latin1');
        for (let k = 0; k < v.length; k++) {
          const byte = v[k] as number;
          out[at++] = HEX[byte >> 4] as number;
          out[at++] = HEX[byte & 15] as number;
        }
      } else at += out.write(copyCell(v), at, 'utf8');
    }
    out[at++] = 0x0a; // \n
  }
  return out.subarray(0, at);
}

export async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: string,
  rows: Cell[][],
): Promise<void> {
  if (rows.length === 0) return;
  // One write and the end, without a Readable and a pipeline around it: the rows are already one buffer.
  const stream = client.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`));
  stream.end(copyBytes(rows));
  await finished(stream);
}
