// COPY … FROM STDIN in PostgreSQL's text format, for the two tables every batch appends to (span_blocks,
// tool_call_rows): measured 1.3–1.6× the rate of a multi-row INSERT … SELECT unnest(…) of the same rows
// (docs/decisions/0007). Rows are plain appends under the batch's trace locks, so nothing needs ON CONFLICT.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export type Cell = string | number | bigint | Uint8Array | null | undefined;

/**
 * A value in COPY text format: \N for null, backslash escapes for the characters the format reserves, bytes in
 * bytea's hex form (`\x…`, its backslash escaped).
 */
export function copyCell(v: Cell): string {
  if (v === null || v === undefined) return '\\N';
  if (v instanceof Uint8Array)
    return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (typeof v !== 'string') return String(v);
  return v.replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

export async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: string,
  rows: Cell[][],
): Promise<void> {
  if (rows.length === 0) return;
  const text = rows.map((r) => `${r.map(copyCell).join('\t')}\n`).join('');
  await pipeline(
    Readable.from([text]),
    client.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`)),
  );
}
