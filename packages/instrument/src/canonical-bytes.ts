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

/** Token units of a run of letters (positive length) or digits (negative). */
const runUnits = (run: number): number =>
  run > 0
    ? Math.ceil(run / LETTERS_PER_TOKEN) * UNITS_PER_TOKEN
    : Math.ceil(-run / DIGITS_PER_TOKEN) * UNITS_PER_TOKEN;

/**
 * A JSON string as JSON.stringify writes it, in UTF-8: quotes, short and \u escapes, lone surrogates escaped;
 * its token units counted on the way as output-size.ts counts them (letter and digit runs, punctuation, non-ASCII).
 */
function string(s: string): void {
  // At most six bytes per UTF-16 unit (a \u escape), and the quotes.
  room(6 * s.length + 2);
  chars += s.length;
  let u = 2 * PUNCTUATION;
  // The current run: letters so far (> 0) or digits (< 0).
  let run = 0;
  buf[at++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) {
        if (run < 0) {
          u += runUnits(run);
          run = 0;
        }
        run++;
        buf[at++] = c;
        continue;
      }
      if (c >= 0x30 && c <= 0x39) {
        if (run > 0) {
          u += runUnits(run);
          run = 0;
        }
        run--;
        buf[at++] = c;
        continue;
      }
      if (run !== 0) {
        u += runUnits(run);
        run = 0;
      }
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) u += PUNCTUATION;
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
      continue;
    }
    if (run !== 0) {
      u += runUnits(run);
      run = 0;
    }
    u += NON_ASCII;
    if (c < 0x800) {
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
  if (run !== 0) u += runUnits(run);
  units += u;
  buf[at++] = 0x22;
}

/** One byte of JSON punctuation. */
function punct(byte: number): void {
  room(1);
  buf[at++] = byte;
  units += PUNCTUATION;
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
      units += UNITS_PER_TOKEN;
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
    units += UNITS_PER_TOKEN;
    return true;
  }
  const obj = value as object;
  if (depth >= MAX_DEPTH || path.includes(obj)) {
    measure.exact = false;
    ascii(depth >= MAX_DEPTH ? '"[depth]"' : '"[circular]"');
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
          units += UNITS_PER_TOKEN;
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
