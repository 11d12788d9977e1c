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
/** How many of a string's bytes its slot is hashed from (with its length). */
const SAMPLED = 8;
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
  // FNV-1a over the length and at most SAMPLED bytes, the first and the last half of them: a request's keys that
  // share a prefix (`gen_ai.`, `toolscope.`) differ in length or end, and ids are random throughout. Hashing
  // every byte took a tenth more of the decode (2.65 against 2.40 µs per span of the bench's batches); strings
  // alike in the sampled bytes only share a slot, the one read last made anew. The compare reads every byte.
  let hash = 0x811c9dc5 ^ length;
  const head = length <= SAMPLED ? end : start + SAMPLED / 2;
  for (let i = start; i < head; i++) hash = Math.imul(hash ^ (buf[i] as number), 0x01000193);
  for (let i = Math.max(head, end - SAMPLED / 2); i < end; i++)
    hash = Math.imul(hash ^ (buf[i] as number), 0x01000193);
  const slot = (hash ^ (hash >>> 16)) & (TABLE - 1);
  const known = kept[slot] as string;
  if (known.length === length) {
    let i = 0;
    // A kept string is ASCII: a byte of 0x80 or more never equals one of its units.
    while (i < length && known.charCodeAt(i) === buf[start + i]) i++;
    if (i === length) {
      r.pos = end;
      return known;
    }
  }
  // Only ASCII strings are kept: a byte is then a UTF-16 unit of the string, as latin1 reads it.
  for (let i = start; i < end; i++)
    if ((buf[i] as number) >= 0x80) {
      r.pos = field;
      return r.string();
    }
  r.pos = end;
  const s = buf.toString('latin1', start, end);
  kept[slot] = s;
  return s;
}

/** Empties the table: called once a request is decoded, so nothing it carried stays reachable from here. */
export function forgetStrings(): void {
  kept.fill('');
}
