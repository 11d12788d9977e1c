// The UTF-8 bytes of canonicalJson(value), written straight into a reused buffer for the keyed hash to read: the
// same walk and the same rules as canonical-json.ts, but no JSON text is built, so hashing a result allocates
// next to nothing (the string walk was most of the output hash's garbage, decision 0025). The same walk counts
// what measureJson counts (bytes and token units, output-size.ts), so a result is walked once for its hash and
// its size (decision 0026); where the two rules part (cycles, depth, BigInt, unreadable values, a `toJSON`
// whose result has one, past the node or scan budget) it says so and the caller measures the value on its own.
// This module is the walk (which values, in which order, where the rules part); canonical-writer.ts writes the bytes
// and counts the units.

import {
  callToJson,
  MAX_DEPTH,
  safeGet,
  sortKeys,
  UNREADABLE,
  UNSERIALIZABLE,
} from './canonical-json.js';
import {
  ascii,
  countUnits,
  punct,
  releaseWriter,
  resetWriter,
  rewind,
  scannedChars,
  string,
  written,
  writtenBytes,
  writtenUnits,
} from './canonical-writer.js';
import { asciiUnits, MAX_NODES, TOKEN_SCAN_CHARS, UNITS_PER_TOKEN } from './output-size.js';

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

let nodes = 0;
let walking = false;

const UNITS = UNITS_PER_TOKEN;
const DEPTH = MAX_DEPTH;

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
  resetWriter();
  nodes = 0;
  measure.exact = true;
  try {
    const wrote = put(value, 0, [], false);
    measure.bytes = wrote ? writtenBytes() : 0;
    measure.tokens = wrote ? Math.round(writtenUnits() / UNITS) : 0;
    if (nodes > MAX_NODES || scannedChars() > TOKEN_SCAN_CHARS) measure.exact = false;
    if (!wrote) ascii('null');
    return use(written(), writtenBytes());
  } finally {
    walking = false;
    releaseWriter();
  }
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
      countUnits(asciiUnits(text));
      return true;
    }
    case 'boolean':
      ascii(value ? 'true' : 'false');
      countUnits(UNITS);
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
    countUnits(UNITS);
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
          countUnits(UNITS);
        }
      }
      punct(0x5d);
      return true;
    }
    punct(0x7b);
    let first = true;
    for (const key of sortKeys(keysOf(obj))) {
      const mark = writtenBytes();
      const unitsMark = writtenUnits();
      if (!first) punct(0x2c);
      string(key);
      punct(0x3a);
      // Left out, as canonicalJson leaves it: take the key back.
      if (!put(safeGet(obj, key), depth + 1, path, false)) {
        rewind(mark, unitsMark);
      } else first = false;
    }
    punct(0x7d);
    return true;
  } finally {
    path.pop();
  }
}
