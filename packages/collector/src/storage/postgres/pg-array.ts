// Array parameters written as PostgreSQL array literals by us, not by node-postgres: its arrayString escapes
// every element with two regular-expression replaces and quotes it, whether or not it holds a character to
// escape; for the rollups' histograms (JSON text, full of double quotes) that was a tenth of what a PostgreSQL
// collector allocated per span (docs/decisions/0063-rollups-without-garbage.md). The literal is what
// arrayString makes of the same values, less the quotes around numbers.

/** A value of an array parameter: text, a number or bigint, or NULL. */
export type ArrayItem = string | number | bigint | null | undefined;

// Inside a double-quoted element only the backslash and the double quote are special (PostgreSQL's array
// input: "the double quote and backslash characters must be backslashed").
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** The array literal of `items` (`{"a","b\"c",1,NULL}`), for a `$n::type[]` parameter. */
export function pgArray(items: readonly ArrayItem[]): string {
  let text = '{';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ',';
    const v = items[i];
    if (v === null || v === undefined) text += 'NULL';
    else if (typeof v === 'string')
      text += `"${NEEDS_ESCAPE.test(v) ? v.replace(ESCAPED, '\\$&') : v}"`;
    else if (typeof v === 'bigint' || Number.isFinite(v)) text += String(v);
    else
      throw new RangeError(`an array parameter holds ${v}, which no PostgreSQL number type reads`);
  }
  return `${text}}`;
}
