// One walk over a raw input gives its shape and the keyed hash of its canonical JSON, because this runs on every
// call and two walks cost twice. For flat objects of primitives (the common tool input) the walk writes the
// UTF-8 bytes of the canonical JSON straight into a buffer the hash reads: no JSON string is built at all.
import { canonicalJson, sortKeys } from './canonical-json.js';
import type { Hasher } from './hashing.js';
import { inputShape } from './input-shape.js';

export type Fingerprint = { shape: string; hash: string };

const MAX_FLAT_KEYS = 64;

// Scratch for the canonical bytes of the fast path; reused, grown on demand. A getter on the input can run code
// that fingerprints another input midway, so a nested walk takes the general path instead of sharing it.
let scratch = new Uint8Array(512);
// The same memory as a Buffer, for its native latin1 read (copyOfScratch).
let scratchText = Buffer.from(scratch.buffer, scratch.byteOffset, scratch.length);
let walking = false;
// Bytes of the last flat walk in `scratch`.
let written = 0;

/** Shape of `value` and keyed hash of its canonical JSON; flat objects of primitives take a fast path. */
export function fingerprint(value: unknown, hasher: Hasher): Fingerprint {
  const shape = flatShape(value);
  if (shape !== undefined) return { shape, hash: hasher.bytes(scratch, written) };
  return { shape: inputShape(value), hash: hasher(canonicalJson(value)) };
}

/** An input's shape, and its canonical JSON (UTF-8 bytes, or text) kept to be hashed later. */
export type InputPrint = { shape: string; canonical: Uint8Array | string };

/**
 * `fingerprint` without the hash: the shape, and a copy of the canonical JSON taken now, so the hash (the
 * costlier half) can be computed after the response and still describe what arrived (hashCanonical).
 */
export function inputPrint(value: unknown): InputPrint {
  const shape = flatShape(value);
  if (shape !== undefined) return { shape, canonical: copyOfScratch() };
  return { shape: inputShape(value), canonical: canonicalJson(value) };
}

/**
 * The flat walk's bytes kept past the call: as a one-byte string when they are ASCII (the same bytes to the
 * hasher, and cheaper to allocate and collect than a typed array with a buffer of its own), else a copy.
 */
function copyOfScratch(): Uint8Array | string {
  for (let i = 0; i < written; i++)
    if ((scratch[i] as number) > 0x7f) return scratch.slice(0, written);
  return scratchText.toString('latin1', 0, written);
}

/** The keyed hash of an `InputPrint`'s canonical JSON: the value `fingerprint` gives. */
export function hashCanonical(canonical: Uint8Array | string, hasher: Hasher): string {
  return typeof canonical === 'string'
    ? hasher(canonical)
    : hasher.bytes(canonical, canonical.length);
}

/** The shape of a flat object of primitives, its canonical bytes left in `scratch[0, written)`; else undefined. */
function flatShape(value: unknown): string | undefined {
  if (walking || typeof value !== 'object' || value === null || Array.isArray(value))
    return undefined;
  walking = true;
  try {
    if (Object.getPrototypeOf(value) === Object.prototype)
      return flatWalk(value as Record<string, unknown>);
  } catch {
    // A hostile proxy or a throwing getter: the general path reads it defensively.
  } finally {
    walking = false;
  }
  return undefined;
}

/** Room for `more` bytes after `used`, keeping what is written. */
function reserve(used: number, more: number): Uint8Array {
  if (used + more > scratch.length) {
    const grown = new Uint8Array(Math.max(scratch.length * 2, used + more));
    grown.set(scratch.subarray(0, used));
    scratch = grown;
    scratchText = Buffer.from(scratch.buffer, scratch.byteOffset, scratch.length);
  }
  return scratch;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;

// The last flat shape, with the keys and types it was made of: calls to one tool mostly repeat their shape (not
// their values), so a walk whose keys and types match reuses the string instead of concatenating it anew.
let lastKeys: string[] = [];
const lastTypes: string[] = [];
let lastShape = '';
// This walk's types, by key index; reused.
const types: string[] = [];

/** The shape of sorted `keys` with `types[0, n)`: the last one when they match, else made and remembered. */
function shapeOf(keys: string[], n: number): string {
  const previous = lastKeys;
  let same = previous.length === n;
  for (let i = 0; same && i < n; i++) same = previous[i] === keys[i] && lastTypes[i] === types[i];
  if (same) return lastShape;
  let shape = '';
  for (let i = 0; i < n; i++) {
    if (i > 0) shape += ',';
    shape += `${keys[i] as string}:${types[i] as string}`;
    lastTypes[i] = types[i] as string;
  }
  lastKeys = keys;
  lastShape = shape;
  return shape;
}

function flatWalk(obj: Record<string, unknown>): string | undefined {
  const keys = Object.keys(obj);
  const n = keys.length;
  if (n === 0 || n > MAX_FLAT_KEYS) return undefined;
  // The order canonicalJson writes keys in (UTF-16 code units), from the same function.
  sortKeys(keys);
  reserve(0, 1)[0] = OPEN_BRACE;
  let at = 1;
  for (let i = 0; i < n; i++) {
    const key = keys[i] as string;
    if (!isSimpleKey(key)) return undefined;
    const v: unknown = obj[key];
    let text: string;
    let type: string;
    let quoted = false;
    switch (typeof v) {
      case 'string':
        // Written between quotes as it is, unless JSON would escape something in it.
        if (needsEscape(v)) text = JSON.stringify(v);
        else {
          text = v;
          quoted = true;
        }
        type = 'string';
        break;
      case 'number':
        text = Number.isFinite(v) ? String(v) : 'null';
        type = 'number';
        break;
      case 'boolean':
        text = v ? 'true' : 'false';
        type = 'boolean';
        break;
      case 'object':
        if (v !== null) return undefined;
        text = 'null';
        type = 'null';
        break;
      default:
        // undefined, functions, bigint, symbols: the general path knows their rules.
        return undefined;
    }
    types[i] = type;
    // `,"key":text` (or `,"key":"text"`), with room for UTF-8 (at most 3 bytes per UTF-16 unit).
    const buf = reserve(at, key.length + 3 * text.length + 6);
    if (i > 0) buf[at++] = COMMA;
    buf[at++] = QUOTE;
    for (let k = 0; k < key.length; k++) buf[at++] = key.charCodeAt(k);
    buf[at++] = QUOTE;
    buf[at++] = COLON;
    if (quoted) buf[at++] = QUOTE;
    at = putUtf8(buf, at, text);
    if (quoted) buf[at++] = QUOTE;
  }
  reserve(at, 1)[at++] = CLOSE_BRACE;
  written = at;
  return shapeOf(keys, n);
}

/**
 * Writes `text` as UTF-8 into `buf` (with room for it) at `at`; returns the end. Only texts without lone
 * surrogates reach it (those are escaped first), so a high surrogate is always followed by a low one.
 */
function putUtf8(buf: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      buf[at++] = c;
    } else if (c < 0x800) {
      buf[at++] = 0xc0 | (c >> 6);
      buf[at++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdbff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      buf[at++] = 0xf0 | (c >> 18);
      buf[at++] = 0x80 | ((c >> 12) & 0x3f);
      buf[at++] = 0x80 | ((c >> 6) & 0x3f);
      buf[at++] = 0x80 | (c & 0x3f);
    } else {
      buf[at++] = 0xe0 | (c >> 12);
      buf[at++] = 0x80 | ((c >> 6) & 0x3f);
      buf[at++] = 0x80 | (c & 0x3f);
    }
  }
  return at;
}

// These loops stand in for a RegExp and JSON.stringify: in an MCP round trip this code runs cold. With them (and
// the bytes written for the hash), the walk went from 4.0–5.5 to 2.0–2.7 µs per call in situ (decision 0002).

/** `^[A-Za-z_$][\w$-]*$`: keys that need no escaping in JSON or in the shape. */
function isSimpleKey(key: string): boolean {
  const n = key.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    const letter = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
    if (letter) continue;
    if (i > 0 && ((c >= 0x30 && c <= 0x39) || c === 0x2d)) continue;
    return false;
  }
  return true;
}

/**
 * Whether `s` needs JSON.stringify: quotes, backslashes, controls, or any surrogate (JSON.stringify escapes lone
 * ones; pairs are rare enough in tool input to take the slow way too).
 */
function needsEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}
