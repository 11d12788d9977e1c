// The UTF-8 bytes of canonicalJson(value), written straight into a reused buffer for the keyed hash to read: the
// same walk and the same rules as canonical-json.ts, but no JSON text is built, so hashing a result allocates
// next to nothing (the string walk was most of the output hash's garbage, decision 0025).

import { callToJson, MAX_DEPTH, safeGet, safeKeys, sortKeys } from './canonical-json.js';

// The buffer is kept between calls up to this size; a larger result gets one of its own, dropped after.
const KEPT_BYTES = 64 * 1024;

let buf = new Uint8Array(1024);
let at = 0;
let walking = false;

/**
 * Runs `use` on the UTF-8 bytes of `canonicalJson(value)` (valid until `use` returns). Returns `undefined`
 * without calling `use` when a walk is already under way (a `toJSON` or getter that hashes midway): the caller
 * then takes the text path, which gives the same bytes.
 */
export function withCanonicalBytes<T>(
  value: unknown,
  use: (bytes: Uint8Array, length: number) => T,
): T | undefined {
  if (walking) return undefined;
  walking = true;
  at = 0;
  try {
    if (!put(value, 0, [])) ascii('null');
    return use(buf, at);
  } finally {
    walking = false;
    if (buf.length > KEPT_BYTES) buf = new Uint8Array(1024);
  }
}

function room(more: number): void {
  if (at + more <= buf.length) return;
  const grown = new Uint8Array(Math.max(buf.length * 2, at + more));
  grown.set(buf.subarray(0, at));
  buf = grown;
}

/** Text known to be ASCII needing no escape (numbers, literals, markers). */
function ascii(text: string): void {
  room(text.length);
  for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
}

const HEX = '0123456789abcdef';

function unicodeEscape(c: number): void {
  buf[at++] = 0x5c;
  buf[at++] = 0x75;
  buf[at++] = HEX.charCodeAt((c >> 12) & 0xf);
  buf[at++] = HEX.charCodeAt((c >> 8) & 0xf);
  buf[at++] = HEX.charCodeAt((c >> 4) & 0xf);
  buf[at++] = HEX.charCodeAt(c & 0xf);
}

// JSON.stringify's short escapes: \b \t \n \f \r (8, 9, 10, 12, 13).
const SHORT: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };

/** A JSON string as JSON.stringify writes it, in UTF-8: quotes, short and \u escapes, lone surrogates escaped. */
function string(s: string): void {
  // At most six bytes per UTF-16 unit (a \u escape), and the quotes.
  room(6 * s.length + 2);
  buf[at++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) buf[at++] = c;
      else if (c === 0x22 || c === 0x5c) {
        buf[at++] = 0x5c;
        buf[at++] = c;
      } else {
        const short = SHORT[c];
        if (short !== undefined) {
          buf[at++] = 0x5c;
          buf[at++] = short;
        } else unicodeEscape(c);
      }
    } else if (c < 0x800) {
      buf[at++] = 0xc0 | (c >> 6);
      buf[at++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const p = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        buf[at++] = 0xf0 | (p >> 18);
        buf[at++] = 0x80 | ((p >> 12) & 0x3f);
        buf[at++] = 0x80 | ((p >> 6) & 0x3f);
        buf[at++] = 0x80 | (p & 0x3f);
        i++;
      } else unicodeEscape(c);
    } else {
      buf[at++] = 0xe0 | (c >> 12);
      buf[at++] = 0x80 | ((c >> 6) & 0x3f);
      buf[at++] = 0x80 | (c & 0x3f);
    }
  }
  buf[at++] = 0x22;
}

/** Writes `value` as canonicalJson does; false (nothing written) where it writes nothing. */
function put(value: unknown, depth: number, path: object[]): boolean {
  switch (typeof value) {
    case 'string':
      string(value);
      return true;
    case 'number':
      ascii(Number.isFinite(value) ? String(value) : 'null');
      return true;
    case 'boolean':
      ascii(value ? 'true' : 'false');
      return true;
    case 'bigint':
      string(`${value.toString()}n`);
      return true;
    case 'undefined':
    case 'function':
    case 'symbol':
      return false;
    default:
      break;
  }
  if (value === null) {
    ascii('null');
    return true;
  }
  const obj = value as object;
  if (depth >= MAX_DEPTH) {
    ascii('"[depth]"');
    return true;
  }
  if (path.includes(obj)) {
    ascii('"[circular]"');
    return true;
  }
  const json = callToJson(obj);
  if (json !== obj) return put(json, depth + 1, path);
  path.push(obj);
  try {
    if (Array.isArray(obj)) {
      room(1);
      buf[at++] = 0x5b;
      for (let i = 0; i < obj.length; i++) {
        if (i > 0) {
          room(1);
          buf[at++] = 0x2c;
        }
        if (!put(safeGet(obj, i), depth + 1, path)) ascii('null');
      }
      room(1);
      buf[at++] = 0x5d;
      return true;
    }
    room(1);
    buf[at++] = 0x7b;
    let first = true;
    for (const key of sortKeys(safeKeys(obj))) {
      const mark = at;
      if (!first) {
        room(1);
        buf[at++] = 0x2c;
      }
      string(key);
      room(1);
      buf[at++] = 0x3a;
      // Left out, as canonicalJson leaves it: take the key back.
      if (!put(safeGet(obj, key), depth + 1, path)) at = mark;
      else first = false;
    }
    room(1);
    buf[at++] = 0x7d;
    return true;
  } finally {
    path.pop();
  }
}
