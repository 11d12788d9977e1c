// The UTF-8 bytes of canonicalJson(value), written straight into a reused buffer for the keyed hash to read: the
// same walk and the same rules as canonical-json.ts, but no JSON text is built, so hashing a result allocates
// next to nothing (the string walk was most of the output hash's garbage, decision 0025). The same walk counts
// what measureJson counts (bytes and token units, output-size.ts), so a result is walked once for its hash and
// its size (decision 0026); where the two rules part (cycles, depth, BigInt, unreadable values, a `toJSON`
// whose result has one, past the node or scan budget) it says so and the caller measures the value on its own.

import {
  callToJson,
  MAX_DEPTH,
  safeGet,
  sortKeys,
  UNREADABLE,
  UNSERIALIZABLE,
} from './canonical-json.js';
import {
  asciiUnits,
  DIGITS_PER_TOKEN,
  LETTERS_PER_TOKEN,
  MAX_NODES,
  NON_ASCII,
  PUNCTUATION,
  TOKEN_SCAN_CHARS,
  UNITS_PER_TOKEN,
} from './output-size.js';

/** What the last walk measured, read right after `withCanonicalBytes` returns (module state: no object per call). */
export type WalkMeasure = {
  /** UTF-8 bytes of `JSON.stringify(value)` (0 when it writes nothing). */
  bytes: number;
  /** Approximate tokens, as measureJson counts them. */
  tokens: number;
  /** False where measureJson's rules part from the canonical walk's: measure the value with measureJson. */
  exact: boolean;
};

const measure: WalkMeasure = { bytes: 0, tokens: 0, exact: true };
/** The last completed walk's measure. */
export const lastWalk: Readonly<WalkMeasure> = measure;

let units = 0;
let nodes = 0;
let chars = 0;

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
  units = 0;
  nodes = 0;
  chars = 0;
  measure.exact = true;
  try {
    const wrote = put(value, 0, [], false);
    measure.bytes = wrote ? at : 0;
    measure.tokens = wrote ? Math.round(units / UNITS_PER_TOKEN) : 0;
    if (nodes > MAX_NODES || chars > TOKEN_SCAN_CHARS) measure.exact = false;
    if (!wrote) ascii('null');
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

/** Writes `\uXXXX` for `c` into `b` at `a` (with room for it); returns the end. */
function unicodeEscape(b: Uint8Array, a: number, c: number): number {
  b[a] = 0x5c;
  b[a + 1] = 0x75;
  b[a + 2] = HEX.charCodeAt((c >> 12) & 0xf);
  b[a + 3] = HEX.charCodeAt((c >> 8) & 0xf);
  b[a + 4] = HEX.charCodeAt((c >> 4) & 0xf);
  b[a + 5] = HEX.charCodeAt(c & 0xf);
  return a + 6;
}

// JSON.stringify's short escapes: \b \t \n \f \r (8, 9, 10, 12, 13).
const SHORT: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };

/** Token units of a run of letters (positive length) or digits (negative). */
function runUnits(run: number): number {
  return run > 0 ? Math.ceil(run / LETTERS) * UNITS : Math.ceil(-run / DIGITS) * UNITS;
}
// Imported bindings are read through a module cell with a check on every use: copied once for the hot paths.
const LETTERS = LETTERS_PER_TOKEN;
const DIGITS = DIGITS_PER_TOKEN;
const UNITS = UNITS_PER_TOKEN;
const PUNCT = PUNCTUATION;
const DEPTH = MAX_DEPTH;

/**
 * A JSON string as JSON.stringify writes it, in UTF-8: quotes, short and \u escapes, lone surrogates escaped;
 * its token units counted on the way as output-size.ts counts them (letter and digit runs, punctuation, non-ASCII).
 */
function string(s: string): void {
  // At most six bytes per UTF-16 unit (a \u escape), and the quotes.
  room(6 * s.length + 2);
  chars += s.length;
  // The buffer, the write position and the weights in locals for the loop: module bindings are read and written
  // through their context slots (imports with a check each), which made this loop four times slower.
  const b = buf;
  let a = at;
  const punctuation = PUNCT;
  let u = 2 * punctuation;
  // The current run: letters so far (> 0) or digits (< 0).
  let run = 0;
  b[a++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) {
        if (run < 0) {
          u += runUnits(run);
          run = 0;
        }
        run++;
        b[a++] = c;
        continue;
      }
      if (c >= 0x30 && c <= 0x39) {
        if (run > 0) {
          u += runUnits(run);
          run = 0;
        }
        run--;
        b[a++] = c;
        continue;
      }
      if (run !== 0) {
        u += runUnits(run);
        run = 0;
      }
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) u += punctuation;
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) b[a++] = c;
      else if (c === 0x22 || c === 0x5c) {
        b[a++] = 0x5c;
        b[a++] = c;
      } else {
        const short = SHORT[c];
        if (short !== undefined) {
          b[a++] = 0x5c;
          b[a++] = short;
        } else a = unicodeEscape(b, a, c);
      }
      continue;
    }
    if (run !== 0) {
      u += runUnits(run);
      run = 0;
    }
    u += NON_ASCII;
    if (c < 0x800) {
      b[a++] = 0xc0 | (c >> 6);
      b[a++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const p = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        b[a++] = 0xf0 | (p >> 18);
        b[a++] = 0x80 | ((p >> 12) & 0x3f);
        b[a++] = 0x80 | ((p >> 6) & 0x3f);
        b[a++] = 0x80 | (p & 0x3f);
        i++;
      } else a = unicodeEscape(b, a, c);
    } else {
      b[a++] = 0xe0 | (c >> 12);
      b[a++] = 0x80 | ((c >> 6) & 0x3f);
      b[a++] = 0x80 | (c & 0x3f);
    }
  }
  if (run !== 0) u += runUnits(run);
  units += u;
  b[a++] = 0x22;
  at = a;
}

/** One byte of JSON punctuation. */
function punct(byte: number): void {
  room(1);
  buf[at++] = byte;
  units += PUNCT;
}

/** Own enumerable keys; none, and a measure left to measureJson, when reading them throws (a hostile proxy). */
function keysOf(obj: object): string[] {
  try {
    return Object.keys(obj);
  } catch {
    measure.exact = false;
    return [];
  }
}

/**
 * Writes `value` as canonicalJson does; false (nothing written) where it writes nothing. `viaToJson`: the value
 * is what a `toJSON` gave (JSON.stringify would not call another).
 */
function put(value: unknown, depth: number, path: object[], viaToJson: boolean): boolean {
  nodes++;
  switch (typeof value) {
    case 'string':
      if (value === UNREADABLE || value === UNSERIALIZABLE) measure.exact = false;
      string(value);
      return true;
    case 'number': {
      const text = Number.isFinite(value) ? String(value) : 'null';
      ascii(text);
      units += asciiUnits(text);
      return true;
    }
    case 'boolean':
      ascii(value ? 'true' : 'false');
      units += UNITS;
      return true;
    case 'bigint':
      measure.exact = false;
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
    units += UNITS;
    return true;
  }
  const obj = value as object;
  if (depth >= DEPTH || path.includes(obj)) {
    measure.exact = false;
    ascii(depth >= DEPTH ? '"[depth]"' : '"[circular]"');
    return true;
  }
  const json = callToJson(obj);
  if (json !== obj) {
    if (viaToJson) measure.exact = false;
    return put(json, depth + 1, path, true);
  }
  path.push(obj);
  try {
    if (Array.isArray(obj)) {
      punct(0x5b);
      for (let i = 0; i < obj.length; i++) {
        if (i > 0) punct(0x2c);
        if (!put(safeGet(obj, i), depth + 1, path, false)) {
          ascii('null');
          units += UNITS;
        }
      }
      punct(0x5d);
      return true;
    }
    punct(0x7b);
    let first = true;
    for (const key of sortKeys(keysOf(obj))) {
      const mark = at;
      const unitsMark = units;
      if (!first) punct(0x2c);
      string(key);
      punct(0x3a);
      // Left out, as canonicalJson leaves it: take the key back.
      if (!put(safeGet(obj, key), depth + 1, path, false)) {
        at = mark;
        units = unitsMark;
      } else first = false;
    }
    punct(0x7d);
    return true;
  } finally {
    path.pop();
  }
}
