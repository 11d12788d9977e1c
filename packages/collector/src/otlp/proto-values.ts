// The values of an OTLP request read from the protobuf wire (proto-span.ts says why not through protobufjs's
// messages): KeyValue and AnyValue under the collector's caps, ids as hex, 64-bit fields exact, and the framing
// checks every message reader here shares.
import { type AttrValue, LIMITS } from './model.js';
import { type AttrCollector, setAttr } from './normalize.js';
import type { ProtoReader } from './proto.js';
import { stringOf } from './proto-strings.js';

/** protobufjs's BufferReader: decodeProtobuf always reads from a Buffer. */
export type Wire = ProtoReader & { buf: Buffer };

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited).
const KEY_VALUE_KEY = 10; // 1
const KEY_VALUE_VALUE = 18; // 2
const ANY_STRING = 10; // 1
const ANY_BOOL = 16; // 2
const ANY_INT = 24; // 3
const ANY_DOUBLE = 33; // 4
const ANY_ARRAY = 42; // 5
const ANY_KVLIST = 50; // 6
const ANY_BYTES = 58; // 7
const LIST_ITEM = 10; // ArrayValue.values = 1, KeyValueList.values = 1

/** A KeyValue into an attribute collector; one with no value is skipped, as the walk skips it. */
export function keyValue(r: Wire, end: number, into: AttrCollector): void {
  const value = entry(r, end, 0);
  into.add(entryKey, value);
}

/** The key of the KeyValue entry() read last: set as it returns, read by its caller at once. */
let entryKey = '';

/**
 * A KeyValue's value (undefined when absent), its key ('' when absent, protobuf's default) left in `entryKey`:
 * a pair returned per attribute would be one more allocation per attribute.
 */
function entry(r: Wire, end: number, depth: number): AttrValue | undefined {
  let key = '';
  let value: AttrValue | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === KEY_VALUE_KEY) key = stringOf(r);
    else if (tag === KEY_VALUE_VALUE) value = anyValue(r, ends(r), depth);
    else r.skipType(tag & 7);
  }
  closes(r, end);
  entryKey = key;
  return value;
}

/**
 * An AnyValue: the last member of its oneof on the wire (protobuf's rule), null when none is set or when an
 * array or list is deeper than the cap allows.
 */
function anyValue(r: Wire, end: number, depth: number): AttrValue {
  let value: AttrValue = null;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case ANY_STRING:
        value = stringOf(r);
        break;
      case ANY_BOOL:
        value = r.bool();
        break;
      case ANY_INT:
        value = int64(r);
        break;
      case ANY_DOUBLE:
        value = r.double();
        break;
      case ANY_ARRAY:
      case ANY_KVLIST: {
        const listEnd = ends(r);
        if (depth >= LIMITS.maxDepth) {
          r.pos = listEnd;
          value = null;
        } else
          value = tag === ANY_ARRAY ? arrayValue(r, listEnd, depth) : kvlist(r, listEnd, depth);
        break;
      }
      case ANY_BYTES: {
        const bytesEnd = ends(r);
        value = r.buf.toString('base64', r.pos, bytesEnd);
        r.pos = bytesEnd;
        break;
      }
      default:
        r.skipType(tag & 7);
    }
  }
  closes(r, end);
  return value;
}

function arrayValue(r: Wire, end: number, depth: number): AttrValue[] {
  const out: AttrValue[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === LIST_ITEM && out.length < LIMITS.maxArrayItems)
      out.push(anyValue(r, ends(r), depth + 1));
    else r.skipType(tag & 7);
  }
  closes(r, end);
  return out;
}

function kvlist(r: Wire, end: number, depth: number): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  let seen = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === LIST_ITEM && seen++ < LIMITS.maxAttributesPerSpan) {
      const value = entry(r, ends(r), depth + 1);
      if (value !== undefined) setAttr(out, entryKey, value);
    } else r.skipType(tag & 7);
  }
  closes(r, end);
  return out;
}

/** Where the length-delimited field that starts here ends; past the buffer is an error. */
export function ends(r: Wire): number {
  const end = r.uint32() + r.pos;
  if (end > r.len) throw new RangeError('index out of range');
  return end;
}

/** A message must end exactly where its length said: a field running past it is damage, not data. */
export function closes(r: Wire, end: number): void {
  if (r.pos !== end) throw new RangeError('a field runs past its message');
}

export function hexOf(r: Wire): string {
  const end = ends(r);
  const hex = r.buf.toString('hex', r.pos, end);
  r.pos = end;
  return hex;
}

/**
 * An id field as hex, the same string as the one read last by this reader when its bytes are the same: each
 * span of a trace carries its trace id, and the calls of a turn their parent's id.
 */
export class RepeatedHex {
  private readonly bytes = new Uint8Array(16);
  private length = -1;
  private hex = '';

  read(r: Wire): string {
    const end = ends(r);
    const start = r.pos;
    const length = end - start;
    const buf = r.buf;
    r.pos = end;
    if (length === this.length) {
      let i = 0;
      while (i < length && this.bytes[i] === buf[start + i]) i++;
      if (i === length) return this.hex;
    }
    const hex = buf.toString('hex', start, end);
    if (length <= this.bytes.length) {
      for (let i = 0; i < length; i++) this.bytes[i] = buf[start + i] as number;
      this.length = length;
      this.hex = hex;
    }
    return hex;
  }
}

/** The 8 bytes of a fixed64, read as one unsigned 64-bit word where the machine's words are little-endian. */
const WORD = new BigUint64Array(1);
const WORD_BYTES = new Uint8Array(WORD.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * A fixed64 as an exact unsigned bigint: its bytes copied into a 64-bit word (one bigint made, not the four of
 * joining two halves: two of these per span were 4 % of the decoding thread's allocation), or from its two
 * little-endian halves by protobufjs (a big-endian machine, or a field running past the buffer, which throws).
 */
export function fixed64(r: Wire): bigint {
  const at = r.pos;
  if (LITTLE_ENDIAN && at + 8 <= r.len) {
    const buf = r.buf;
    for (let i = 0; i < 8; i++) WORD_BYTES[i] = buf[at + i] as number;
    r.pos = at + 8;
    return WORD[0] as bigint;
  }
  const low = r.fixed32();
  const high = r.fixed32();
  return (BigInt(high) << 32n) | BigInt(low);
}

const TWO_32 = 4294967296;
const SAFE_HIGH = 0x200000; // 2^21: |high| below it keeps the value within ±2^53

/** An int64 varint: a number when it is exactly one, else its decimal text (as the walk made of a Long). */
function int64(r: Wire): number | string {
  let low = 0;
  let high = 0;
  let shift = 0;
  for (let i = 0; ; i++) {
    if (i === 10) throw new RangeError('invalid varint encoding');
    if (r.pos >= r.len) throw new RangeError('index out of range');
    const byte = r.buf[r.pos++] as number;
    if (shift < 28) low |= (byte & 0x7f) << shift;
    else if (shift === 28) {
      low |= (byte & 0x0f) << 28;
      high |= (byte & 0x7f) >> 4;
    } else high |= (byte & 0x7f) << (shift - 32);
    if (byte < 0x80) break;
    shift += 7;
  }
  const signedHigh = high | 0;
  if (signedHigh > -SAFE_HIGH && signedHigh < SAFE_HIGH) return signedHigh * TWO_32 + (low >>> 0);
  const exact = BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
  return exact >= BigInt(Number.MIN_SAFE_INTEGER) && exact <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(exact)
    : exact.toString();
}
