// Array parameters written as PostgreSQL array literals by us, not by node-postgres: its arrayString escapes
// every element with two regular-expression replaces and quotes it, whether or not it holds a character to
// escape; for the rollups' histograms (JSON text, full of double quotes) that was a tenth of what a PostgreSQL
// collector allocated per span (docs/decisions/0063-less-garbage-per-span.md). The literal is what
// arrayString makes of the same values, less the quotes around numbers, written as bytes into scratch space
// and read out as one string.

/** A value of an array parameter: text, a number or bigint, or NULL. */
export type ArrayItem = string | number | bigint | null | undefined;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Scratch space, kept up to this size. */
const KEEP_BYTES = 1 << 20;
let scratch = Buffer.allocUnsafe(64 * 1024);

/** The array literal of `items` (`{"a","b\"c",1,NULL}`), for a `$n::type[]` parameter. */
export function pgArray(items: readonly ArrayItem[]): string {
  // At most: each UTF-16 unit as 3 bytes of UTF-8, or 2 when escaped; quotes, a comma; a number's 33 characters.
  let bound = 2;
  for (const v of items) bound += typeof v === 'string' ? v.length * 3 + 3 : 34;
  let out = scratch;
  if (bound > out.length) {
    out = Buffer.allocUnsafe(bound);
    if (bound <= KEEP_BYTES) scratch = out;
  }
  let at = 0;
  out[at++] = 0x7b; // {
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = 0x2c; // ,
    const v = items[i];
    if (v === null || v === undefined) at += out.write('NULL', at, 'latin1');
    else if (typeof v === 'string') at = writeElement(out, at, v);
    else if (typeof v === 'bigint' || Number.isFinite(v)) at += out.write(String(v), at, 'latin1');
    else
      throw new RangeError(`an array parameter holds ${v}, which no PostgreSQL number type reads`);
  }
  out[at++] = 0x7d; // }
  return out.toString('utf8', 0, at);
}

/**
 * A string as a double-quoted element: inside one only the backslash and the double quote are special
 * (PostgreSQL's array input: "the double quote and backslash characters must be backslashed"). ASCII is copied
 * unit by unit; a string with any other character is escaped by a replace and written as UTF-8.
 */
function writeElement(out: Buffer, start: number, v: string): number {
  let at = start;
  out[at++] = QUOTE;
  for (let k = 0; k < v.length; k++) {
    const c = v.charCodeAt(k);
    if (c >= 0x80) {
      at = start + 1;
      at += out.write(v.replace(/[\\"]/g, '\\$&'), at, 'utf8');
      break;
    }
    if (c === QUOTE || c === BACKSLASH) out[at++] = BACKSLASH;
    out[at++] = c;
  }
  out[at++] = QUOTE;
  return at;
}
