// How tool-call ids are found, exactly or by prefix (search, and /api/calls?callId=): the index is on
// (id / 4,096, call_id). A block is 4,096 rows in insertion order, so a new call lands in the newest block's small
// subtree whatever the ingest rate, and a commit dirties a few of its pages. The (ten-minute slot, call_id)
// index it replaces (decision 0012) put every call of a busy slot in one random-key subtree: a commit dirtied a
// page of it per call, a third of the SQLite writer's time at bench:ingest's rate (decision 0038). Within a block
// the ids are sorted, so an id or a prefix is one seek per block of a window, the blocks found by time with a
// binary search over their first rows.
//
// The block is an expression, not a column: no row grows for it. Both backends index the same expression text,
// so a query must write it exactly as BLOCK_SQL does.
import { big, type ReadDb } from './sql/db.js';

/** Rows per block. */
export const BLOCK_ROWS = 4096n;

/** The indexed expression; queries must use this text for the index to apply. */
export const BLOCK_SQL = '(id / 4096)';

/**
 * How long after it started a call may arrive (an exporter's retries, its batching): a block whose first row
 * started this long before a window may still hold calls of the window.
 */
export const ARRIVAL_SLACK_NS = 3_600_000_000_000n;

/** Blocks a query names at most; a window of more is read newest first, up to this many (the newest calls). */
const MAX_BLOCKS = 20_000n;

/** The start of the first stored call at or after row `id`, or null when none is. */
async function firstStartFrom(db: ReadDb, id: bigint): Promise<bigint | null> {
  const rows = await db.all(
    'SELECT start_ns FROM tool_call_rows WHERE id >= ? ORDER BY id LIMIT 1',
    [id],
  );
  const row = rows[0];
  return row ? big(row.start_ns) : null;
}

/**
 * The blocks that may hold calls started at or after `sinceNs`, newest first. Calls arrive roughly in start
 * order: the blocks from the newest one whose first call started before the window (less the arrival slack)
 * on, found by a binary search over the blocks' first rows (a dozen seeks for a week of a million calls a day).
 */
export async function blocksSince(db: ReadDb, sinceNs: bigint): Promise<bigint[]> {
  // One subquery each: SQLite answers a lone MIN or MAX from the key, but scans the table for both in one
  // SELECT (15 ms at 200,000 calls, 80 at a million, on every search).
  const rows = await db.all(
    'SELECT (SELECT MIN(id) FROM tool_call_rows) AS lo, (SELECT MAX(id) FROM tool_call_rows) AS hi',
  );
  const range = rows[0];
  if (!range || range.hi === null || range.hi === undefined) return [];
  const newest = big(range.hi) / BLOCK_ROWS;
  let from = big(range.lo) / BLOCK_ROWS;
  let low = from;
  let high = newest;
  const before = sinceNs - ARRIVAL_SLACK_NS;
  while (low <= high) {
    const mid = (low + high) / 2n;
    const start = await firstStartFrom(db, mid * BLOCK_ROWS);
    if (start !== null && start < before) {
      from = mid;
      low = mid + 1n;
    } else high = mid - 1n;
  }
  if (newest - from >= MAX_BLOCKS) from = newest - MAX_BLOCKS + 1n;
  const out: bigint[] = [];
  for (let b = newest; b >= from; b--) out.push(b);
  return out;
}

/**
 * SQL restricting rows to `blocks`, so the (block, call_id) index applies: one seek per block. Integers of our
 * own making, inlined: a week is thousands of them, more than some drivers take as parameters.
 */
export function blockWhere(blocks: readonly bigint[]): string {
  if (blocks.length === 0) return '1 = 0';
  return `${BLOCK_SQL} IN (${blocks.join(', ')})`;
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
