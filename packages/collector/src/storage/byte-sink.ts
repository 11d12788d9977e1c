// Bytes written one after another into a buffer that grows as needed: where a span block's JSON is written as
// UTF-8 (span-bytes.ts) before it is compressed (block-packing.ts), so no string is made per span to be copied
// into it. Reused from block to block: each allocation on the decoding thread is scavenger work.

/** A sink keeps a buffer up to this size between blocks; one grown past it is dropped when the next starts. */
const KEEP = 1 << 20;
const INITIAL = 64 * 1024;

export class ByteSink {
  buf: Buffer;
  /** Where the next byte goes; the bytes before it are the sink's content. */
  at = 0;

  constructor(private readonly initial = INITIAL) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  /** Empties the sink for the next block. */
  reset(): void {
    this.at = 0;
    if (this.buf.length > KEEP) this.buf = Buffer.allocUnsafe(this.initial);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.at + n;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.at++] = b;
  }

  /** A string known to be ASCII (hex ids, digits, the codec's own keys), a byte per unit. */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.at = at;
  }

  /** Any string as UTF-8 (a UTF-16 unit is at most 3 bytes; a surrogate pair, 2 units, is 4). */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.at += this.buf.write(s, this.at);
  }

  /** The content so far (a view, valid until the sink is written again). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}
