// How tool-call ids are found, exactly or by prefix (search by the first characters of a call id on
// 1M calls). The index is on (start_ns / 10 min, call_id): within one ten-minute slot the ids are sorted, so an
// id or a prefix is one seek per slot of the window, and new calls land in the current slot's small subtree
// instead of all over one random-key index. Measured on 1M calls at 1M a day, batches of 512 (decision 0012):
// inserts 82k rows/s with it, 55k with the (64 hash buckets, start_ns, call_id) index it replaces, 21k with a
// plain index on call_id; a prefix over a week of slots 1.5 ms.
//
// The slot is an expression, not a column: no row grows for it. Both backends index the same expression text,
// so a query must write it exactly as SLOT_SQL does.

/** Nanoseconds per slot. */
export const SLOT_NS = 600_000_000_000n;

/** The indexed expression; queries must use this text for the index to apply. */
export const SLOT_SQL = '(start_ns / 600000000000)';

/** Slots a query names at most; a longer window falls back to a range over the slot (correct, slower). */
const MAX_LISTED = 5_000;

/**
 * Slots per query (a day) when a prefix is looked up newest first, stopping once enough calls are found: a
 * week is 7 round trips at most (with 36, 28 cost PostgreSQL 37 ms for a prefix no call has).
 */
export const SLOTS_PER_CHUNK = 144;

/** The slots of [sinceNs, untilNs), newest first. */
export function slotsOf(sinceNs: bigint, untilNs: bigint): bigint[] {
  if (untilNs <= sinceNs) return [];
  const first = sinceNs / SLOT_NS;
  const last = (untilNs - 1n) / SLOT_NS;
  const out: bigint[] = [];
  for (let s = last; s >= first; s--) out.push(s);
  return out;
}

/**
 * SQL restricting rows to the window's slots, so the (slot, call_id) index applies. Integers of our own making,
 * inlined: a week is 1,008 of them, more than some drivers take as parameters.
 */
export function slotWhere(sinceNs: bigint, untilNs: bigint): string {
  const slots = slotsOf(sinceNs, untilNs);
  if (slots.length === 0) return '1 = 0';
  if (slots.length > MAX_LISTED)
    return `${SLOT_SQL} BETWEEN ${sinceNs / SLOT_NS} AND ${(untilNs - 1n) / SLOT_NS}`;
  return `${SLOT_SQL} IN (${slots.join(', ')})`;
}

/**
 * The smallest string greater than every string that starts with `prefix`, in byte (code point) order:
 * the prefix with its last character raised by one (characters at U+10FFFF are dropped first).
 */
export function prefixEnd(prefix: string): string | null {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = chars.pop() as string;
    const cp = last.codePointAt(0) as number;
    // Skip the surrogate range: a string cannot hold a lone surrogate code point as a character.
    const next = cp === 0xd7ff ? 0xe000 : cp + 1;
    if (next <= 0x10ffff) return chars.join('') + String.fromCodePoint(next);
  }
  return null;
}
