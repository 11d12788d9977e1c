// A protobuf writer for the few OTLP messages the proxy sends: varints, fixed64, doubles, strings and nested
// messages into one growing buffer. A nested message reserves one length byte and shifts itself when longer.
// Every call span goes through it, so the common cases avoid native calls and BigInt arithmetic: fixed-width
// values through a DataView, short ASCII strings (a span's keys and most of its values) copied in JS.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

const MAX_U64 = 0xffff_ffff_ffff_ffffn;

const viewOf = (b: Buffer) => new DataView(b.buffer, b.byteOffset, b.byteLength);

export const varintSize = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;

/** The value of a hex digit's character code, or -1. */
function nibble(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** Writes protobuf fields into a buffer that grows as needed. */
export class ProtoWriter {
  #buf: Buffer;
  #view: DataView;
  pos = 0;

  constructor(initialBytes = 4096) {
    this.#buf = Buffer.allocUnsafe(initialBytes);
    this.#view = viewOf(this.#buf);
  }

  #ensure(n: number): void {
    if (this.pos + n <= this.#buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.pos + n));
    this.#buf.copy(grown, 0, 0, this.pos);
    this.#buf = grown;
    this.#view = viewOf(grown);
  }

  /** A field's key. */
  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** An unsigned varint below 2^53 (lengths, enums, counts, positive int64). */
  varint(value: number): void {
    this.#ensure(10);
    let v = value;
    while (v > 0x7fffffff) {
      this.#buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    while (v > 0x7f) {
      this.#buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#buf[this.pos++] = v;
  }

  /** An int64 varint: a negative or very large integer takes the two's-complement 10 bytes. */
  int64(value: number): void {
    if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) {
      this.varint(value);
      return;
    }
    this.#ensure(10);
    let v = BigInt.asUintN(64, BigInt(value));
    while (v > 0x7fn) {
      this.#buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.#buf[this.pos++] = Number(v);
  }

  /** An unsigned 64-bit integer (0 to 2^64 - 1, as `writeBigUInt64LE` takes). */
  fixed64(value: bigint): void {
    if (value < 0n || value > MAX_U64) throw new RangeError(`fixed64 out of range: ${value}`);
    this.#ensure(8);
    this.#view.setBigUint64(this.pos, value, true);
    this.pos += 8;
  }

  fixed32(value: number): void {
    this.#ensure(4);
    this.#view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  double(value: number): void {
    this.#ensure(8);
    this.#view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  /** A string field's value: its UTF-8 length, then its bytes. */
  string(value: string): void {
    const length = value.length;
    if (length < 0x80) {
      this.#ensure(1 + length);
      const buf = this.#buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < length; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      if (i === length) {
        buf[this.pos] = length;
        this.pos = start + length;
        return;
      }
    }
    // A string of n UTF-16 units takes at most 3n bytes; short ones are written without measuring first.
    if (length < 43) {
      this.#ensure(1 + value.length * 3);
      const start = this.pos + 1;
      const n = this.#buf.write(value, start, 'utf8');
      this.#buf[this.pos] = n;
      this.pos = start + n;
      return;
    }
    const n = Buffer.byteLength(value);
    this.varint(n);
    this.#ensure(n);
    this.pos += this.#buf.write(value, this.pos, n, 'utf8');
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.#ensure(value.length);
    this.#buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Hex digits written as the bytes they spell (trace and span ids), as Buffer's hex decoding writes them. */
  hex(value: string): void {
    const n = value.length >>> 1;
    this.varint(n);
    this.#ensure(n);
    const buf = this.#buf;
    const start = this.pos;
    for (let i = 0; i < n; i++) {
      const hi = nibble(value.charCodeAt(2 * i));
      const lo = nibble(value.charCodeAt(2 * i + 1));
      // Not hex: Buffer's decoder stops there, and its rule is the one kept.
      if (hi < 0 || lo < 0) {
        this.pos = start + buf.write(value, start, n, 'hex');
        return;
      }
      buf[start + i] = (hi << 4) | lo;
    }
    this.pos = start + n;
  }

  /** Starts a nested message (after its tag); pass the result to `end`. */
  begin(): number {
    this.#ensure(1);
    return this.pos++;
  }

  /** Ends the nested message started at `at`: writes its length there, moving the message when it needs more. */
  end(at: number): void {
    const length = this.pos - at - 1;
    const size = varintSize(length);
    if (size > 1) {
      this.#ensure(size - 1);
      this.#buf.copyWithin(at + size, at + 1, this.pos);
      this.pos += size - 1;
    }
    let p = at;
    let v = length;
    while (v > 0x7f) {
      this.#buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#buf[p] = v;
  }

  /** Raw bytes already encoded as fields. */
  raw(value: Uint8Array): void {
    this.#ensure(value.length);
    this.#buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Bytes held (written or not). */
  get capacity(): number {
    return this.#buf.length;
  }

  /** What was written, not copied: valid until the writer is written to or reset again. */
  written(): Buffer {
    return this.#buf.subarray(0, this.pos);
  }

  /** A copy of what was written (the writer can then be reset and reused). */
  copy(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.pos));
  }

  reset(): void {
    this.pos = 0;
  }
}
