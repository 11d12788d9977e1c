// Strings read from the protobuf wire without a new string for each repeat. A request's spans repeat most of
// their strings (every attribute key, the operation and tool names): making each anew was a large part of what
// the decoding thread allocated per span, all of it scavenger work. Strings are immutable, so a repeat returns
// the one made before; nothing else changes. The table lives for one request's decoding (forgetStrings): a value
// may be a secret the content policy masks once the request is decoded, and none is kept past it. Repeated ids:
// proto-values.ts RepeatedHex.
import type { Wire } from './proto-values.js';

/** Short ASCII strings are kept, by a hash of their bytes, in a table of this many (a power of two)... */
const TABLE = 1024;
/** ...up to this many bytes: keys and enum-like values, not texts. */
const MAX_KEPT = 48;
const kept = new Array<string>(TABLE).fill('');

/**
 * A length-delimited string field, as protobufjs's `string()` reads it: a short ASCII one from the table when it
 * was read before; any other (longer, non-ASCII, or running past the buffer) by protobufjs itself.
 */
export function stringOf(r: Wire): string {
  const field = r.pos;
  const length = r.uint32();
  const start = r.pos;
  const end = start + length;
  if (length > MAX_KEPT || end > r.len) {
    r.pos = field;
    return r.string();
  }
  const buf = r.buf;
  // FNV-1a over the bytes, which must all be ASCII: a byte is then a UTF-16 unit of the string.
  let hash = 0x811c9dc5 ^ length;
  for (let i = start; i < end; i++) {
    const b = buf[i] as number;
    if (b >= 0x80) {
      r.pos = field;
      return r.string();
    }
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  const slot = (hash ^ (hash >>> 16)) & (TABLE - 1);
  const known = kept[slot] as string;
  r.pos = end;
  if (known.length === length) {
    let i = 0;
    while (i < length && known.charCodeAt(i) === buf[start + i]) i++;
    if (i === length) return known;
  }
  const s = buf.toString('latin1', start, end);
  kept[slot] = s;
  return s;
}

/** Empties the table: called once a request is decoded, so nothing it carried stays reachable from here. */
export function forgetStrings(): void {
  kept.fill('');
}
