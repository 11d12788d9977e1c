// COPY … FROM STDIN for the tables every batch appends many rows to: tool_call_rows in PostgreSQL's text format,
// written here, span_blocks in its binary format (pg-copy-binary.ts). Measured 1.3–1.6× the rate of a multi-row
// INSERT … SELECT unnest(…) of the same rows (docs/decisions/0007). A batch's few model calls go as parameters
// instead, cheaper than a COPY of their own (docs/decisions/0031). Rows are plain appends under the batch's trace
// locks, so nothing needs ON CONFLICT.
import type pg from 'pg';
import { ByteSink } from '../byte-sink.js';
import { copyIn } from './pg-copy-in.js';

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

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const BACKSLASH = 0x5c;
/** Strings up to this length are written by a loop over their units: a Buffer write per cell is a call into C++. */
const SHORT = 64;

/**
 * COPY text written row by row as UTF-8 into one buffer that grows as needed: the text was built by appending
 * to one string (decision 0030), then made bytes again to be sent, and with each block's bytes as a hex string in
 * between it was a tenth of what a PostgreSQL collector allocated per span
 * (docs/decisions/0063-less-garbage-per-span.md). A writer may pass one array for every row. The buffer is this
 * COPY's own: COPYs of concurrent writes run at once.
 */
export class CopyText {
  readonly #sink: ByteSink;
  /** `expectedBytes`: the buffer's first size, grown by doubling when the rows need more. */
  constructor(expectedBytes = 16 * 1024) {
    this.#sink = new ByteSink(expectedBytes);
  }

  /** Appends one line: the cells, a tab between two. */
  row(cells: readonly Cell[]): void {
    const sink = this.#sink;
    for (let i = 0; i < cells.length; i++) {
      if (i > 0) sink.byte(0x09); // \t
      this.#cell(cells[i]);
    }
    sink.byte(0x0a); // \n
  }

  /** The text so far (a view of this COPY's own buffer). */
  bytes(): Buffer {
    return this.#sink.bytes();
  }

  #cell(v: Cell): void {
    const sink = this.#sink;
    if (typeof v === 'string') {
      if (v.length <= SHORT && writePlain(sink, v)) return;
      sink.utf8(copyCell(v));
    } else if (v === null || v === undefined) sink.ascii('\\N');
    else if (v instanceof Uint8Array) {
      sink.ensure(v.length * 2 + 3);
      const buf = sink.buf;
      let at = sink.at;
      buf[at++] = BACKSLASH;
      buf[at++] = BACKSLASH;
      buf[at++] = 0x78; // x
      for (let k = 0; k < v.length; k++) {
        const byte = v[k] as number;
        buf[at++] = HEX[byte >> 4] as number;
        buf[at++] = HEX[byte & 15] as number;
      }
      sink.at = at;
    } else sink.ascii(String(v));
  }
}

/**
 * A short string whose units are all printable ASCII other than the backslash, written as it is; false (nothing
 * kept) for any other, which the caller escapes and writes as UTF-8. Ids, hashes, codes and names are such.
 */
function writePlain(sink: ByteSink, s: string): boolean {
  const n = s.length;
  sink.ensure(n);
  const buf = sink.buf;
  const at = sink.at;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === BACKSLASH) return false;
    buf[at + i] = c;
  }
  sink.at = at + n;
  return true;
}

/** The rows as COPY text (CopyText). */
export function copyBytes(rows: readonly (readonly Cell[])[]): Buffer {
  const text = new CopyText();
  for (const row of rows) text.row(row);
  return text.bytes();
}

/**
 * COPY data already written, in text (CopyText) or binary (pg-copy-binary.ts) format, sent with its statement in
 * one write (pg-copy-in.ts).
 */
export async function sendCopy(
  client: pg.PoolClient,
  table: string,
  columns: string,
  data: Buffer,
  format: 'text' | 'binary' = 'text',
): Promise<void> {
  if (data.length === 0) return;
  const options = format === 'binary' ? ' (FORMAT binary)' : '';
  await copyIn(client, `COPY ${table} (${columns}) FROM STDIN${options}`, data);
}
