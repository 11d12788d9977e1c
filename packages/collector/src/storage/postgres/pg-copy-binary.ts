// COPY … FROM STDIN in PostgreSQL's binary format, for span_blocks, whose rows are mostly a packed block's bytes:
// as text each byte went as two hex digits, which the server decoded again. A bench run's 25,000 block rows took
// the server 130–141 ms to COPY in binary against 260–265 ms as text, from 21 MB instead of 37
// (docs/decisions/0068-pg-server-work-per-span.md). The format: PostgreSQL's COPY documentation, "Binary Format".
import type { BlockRow } from '../batch-rows.js';
import { ByteSink } from '../byte-sink.js';

/** The file header: the signature, no flags, no header extension. */
const HEADER = Buffer.from([
  ...Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'),
  ...[0, 0, 0, 0],
  ...[0, 0, 0, 0],
]);
const TWO_32 = 4294967296;

/** Rows in the binary format, field by field, each row begun with the number of its fields. */
export class BinaryCopy {
  readonly #sink: ByteSink;

  constructor(expectedBytes = 16 * 1024) {
    this.#sink = new ByteSink(Math.max(expectedBytes, HEADER.length + 2));
    HEADER.copy(this.#sink.buf, 0);
    this.#sink.at = HEADER.length;
  }

  /** Begins a row of `fields` fields. */
  row(fields: number): this {
    this.#sink.ensure(2);
    this.#sink.at = this.#sink.buf.writeInt16BE(fields, this.#sink.at);
    return this;
  }

  /** A bigint column's value: a safe integer (ids and row numbers are). */
  int8(v: number): this {
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a 64-bit integer: ${v}`);
    const sink = this.#sink;
    sink.ensure(12);
    const hi = Math.floor(v / TWO_32);
    let at = sink.buf.writeInt32BE(8, sink.at);
    at = sink.buf.writeInt32BE(hi, at);
    sink.at = sink.buf.writeUInt32BE(v - hi * TWO_32, at);
    return this;
  }

  /** A text column's value, as UTF-8 (the connection's client encoding). */
  text(s: string): this {
    const sink = this.#sink;
    sink.ensure(4 + s.length * 3);
    const start = sink.at;
    sink.at += 4;
    sink.utf8(s);
    sink.buf.writeInt32BE(sink.at - start - 4, start);
    return this;
  }

  /** A bytea column's value; null for NULL. */
  bytea(b: Uint8Array | null): this {
    const sink = this.#sink;
    if (b === null) {
      sink.ensure(4);
      sink.at = sink.buf.writeInt32BE(-1, sink.at);
      return this;
    }
    sink.ensure(4 + b.length);
    sink.at = sink.buf.writeInt32BE(b.length, sink.at);
    sink.buf.set(b, sink.at);
    sink.at += b.length;
    return this;
  }

  /** The whole COPY data, its trailer written: no row may follow. */
  end(): Buffer {
    this.#sink.ensure(2);
    this.#sink.at = this.#sink.buf.writeInt16BE(-1, this.#sink.at);
    return this.#sink.bytes();
  }
}

/** The columns of span_blocks that blockRowsCopy gives, in its order. */
export const BLOCK_COLUMNS = 'trace_seq, resource_id, span_ids, packed';

/** The batch's block rows as binary COPY data; empty when it has none (nothing to send). */
export function blockRowsCopy(blocks: readonly BlockRow[]): Buffer {
  if (blocks.length === 0) return Buffer.alloc(0);
  // About 800 bytes a block in bench:ingest: its packed bytes and span ids.
  const copy = new BinaryCopy(blocks.length * 1024);
  for (const b of blocks)
    copy.row(4).int8(b.seq).int8(b.resourceId).text(b.spanIds).bytea(b.packed);
  return copy.end();
}
