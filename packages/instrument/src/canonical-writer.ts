// The writer under the canonical walk (canonical-bytes.ts): a reused buffer the UTF-8 bytes of canonical JSON are
// written into, and the count of token units output-size.ts would give the same text, kept as the bytes are
// written (decision 0026). Module state, not an object per walk: one walk at a time (the walk guards re-entry).
import {
  DIGITS_PER_TOKEN,
  LETTERS_PER_TOKEN,
  NON_ASCII,
  PUNCTUATION,
  UNITS_PER_TOKEN,
} from './output-size.js';

// The buffer is kept between walks up to this size; a larger result gets one of its own, dropped after.
const KEPT_BYTES = 64 * 1024;

let buf = new Uint8Array(1024);
let at = 0;
let units = 0;
let chars = 0;

/** Starts a walk: nothing written, nothing counted. */
export function resetWriter(): void {
  at = 0;
  units = 0;
  chars = 0;
}

/** Drops a buffer grown past what is kept between walks. */
export function releaseWriter(): void {
  if (buf.length > KEPT_BYTES) buf = new Uint8Array(1024);
}

/** The buffer written so far (valid until the next write). */
export const written = (): Uint8Array => buf;
/** Bytes written so far. */
export const writtenBytes = (): number => at;
/** Token units counted so far. */
export const writtenUnits = (): number => units;
/** Characters of strings scanned so far. */
export const scannedChars = (): number => chars;

/** Takes back what was written and counted after `bytes` and `tokenUnits` (a key whose value is left out). */
export function rewind(bytes: number, tokenUnits: number): void {
  at = bytes;
  units = tokenUnits;
}

/** Adds token units for text written with `ascii`. */
export function countUnits(more: number): void {
  units += more;
}

function room(more: number): void {
  if (at + more <= buf.length) return;
  const grown = new Uint8Array(Math.max(buf.length * 2, at + more));
  grown.set(buf.subarray(0, at));
  buf = grown;
}

/** Text known to be ASCII needing no escape (numbers, literals, markers); its units are the caller's to count. */
export function ascii(text: string): void {
  room(text.length);
  for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
}

/** One byte of JSON punctuation. */
export function punct(byte: number): void {
  room(1);
  buf[at++] = byte;
  units += PUNCT;
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

/**
 * A JSON string as JSON.stringify writes it, in UTF-8: quotes, short and \u escapes, lone surrogates escaped;
 * its token units counted on the way as output-size.ts counts them (letter and digit runs, punctuation, non-ASCII).
 */
export function string(s: string): void {
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
