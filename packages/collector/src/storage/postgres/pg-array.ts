// Array parameters written as PostgreSQL array literals by us, not by node-postgres: its arrayString escapes
// every element with two regular-expression replaces and quotes it, whether or not it holds a character to
// escape; for the rollups' histograms (JSON text, full of double quotes) that was a tenth of what a PostgreSQL
// collector allocated per span (docs/decisions/0063-less-garbage-per-span.md). The literal is what
// arrayString makes of the same values, less the quotes around numbers, written as bytes into a reused sink
// (byte-sink.ts) and read out as one string.

/** A value of an array parameter: text, a number or bigint, or NULL. */
export type ArrayItem = string | number | bigint | null | undefined;

import { ByteSink } from '../byte-sink.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Where literals are written; reused from array to array (read out as a string before the next). */
const sink = new ByteSink();

/** The array literal of `items` (`{"a","b\"c",1,NULL}`), for a `$n::type[]` parameter. */
export function pgArray(items: readonly ArrayItem[]): string {
  sink.reset();
  sink.byte(0x7b); // {
  for (let i = 0; i < items.length; i++) {
    if (i > 0) sink.byte(0x2c); // ,
    const v = items[i];
    if (v === null || v === undefined) sink.ascii('NULL');
    else if (typeof v === 'string') writeElement(v);
    else if (typeof v === 'bigint' || Number.isFinite(v)) sink.ascii(String(v));
    else
      throw new RangeError(`an array parameter holds ${v}, which no PostgreSQL number type reads`);
  }
  sink.byte(0x7d); // }
  return sink.bytes().toString('utf8');
}

/**
 * A string as a double-quoted element: inside one only the backslash and the double quote are special
 * (PostgreSQL's array input: "the double quote and backslash characters must be backslashed"). ASCII is copied
 * unit by unit; a string with any other character is escaped by a replace and written as UTF-8.
 */
function writeElement(v: string): void {
  const start = sink.at;
  sink.ensure(v.length * 2 + 2);
  const out = sink.buf;
  let at = start;
  out[at++] = QUOTE;
  for (let k = 0; k < v.length; k++) {
    const c = v.charCodeAt(k);
    if (c >= 0x80) {
      sink.at = start + 1;
      sink.utf8(v.replace(/[\\"]/g, '\\$&'));
      sink.byte(QUOTE);
      return;
    }
    if (c === QUOTE || c === BACKSLASH) out[at++] = BACKSLASH;
    out[at++] = c;
  }
  out[at++] = QUOTE;
  sink.at = at;
}
