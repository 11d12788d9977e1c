// Search by call id (gen_ai.tool.call.id): the calls with exactly that id, then calls whose id starts with
// it, from the (slot, call_id) index (call-slot.ts). Prefixes are read newest slots first, a chunk of slots
// per query, stopping once enough are found: "call_" matches every call, and must not read a week of them.

import { prefixEnd, SLOT_NS, SLOT_SQL, SLOTS_PER_CHUNK, slotsOf } from '../call-slot.js';
import type { SearchHit } from '../contract.js';
import { big, NS_PER_HOUR, type ReadDb, type Row, text } from './db.js';

const LIMIT = 10;
/** Rows a chunk may return: more than LIMIT, so the newest of a busy chunk are kept after sorting. */
const CHUNK_ROWS = 5 * LIMIT;

type CallHit = Extract<SearchHit, { kind: 'call' }>;

function hit(r: Row): CallHit & { at: bigint } {
  return {
    kind: 'call',
    spanId: text(r.span_id),
    traceId: text(r.trace_id),
    callId: text(r.call_id),
    tool: text(r.tool),
    at: big(r.start_ns),
  };
}

const newestFirst = (a: { at: bigint }, b: { at: bigint }) =>
  a.at > b.at ? -1 : a.at < b.at ? 1 : 0;

export async function searchCalls(
  db: ReadDb,
  q: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<CallHit[]> {
  const id = db.byteOrder('call_id');
  const cols = 'trace_id, span_id, tool, call_id, start_ns';
  // Only the slots of hours that had calls (the hour rollup says which, cheaply): a week with one busy day
  // is 144 seeks, not 1,008.
  const busy = new Set(
    (
      await db.all('SELECT DISTINCT hour FROM tool_hours WHERE hour >= ? AND hour <= ?', [
        sinceNs / NS_PER_HOUR,
        untilNs / NS_PER_HOUR,
      ])
    ).map((r) => big(r.hour)),
  );
  const slots = slotsOf(sinceNs, untilNs).filter((s) => busy.has((s * SLOT_NS) / NS_PER_HOUR));
  const chunks: bigint[][] = [];
  for (let i = 0; i < slots.length; i += SLOTS_PER_CHUNK) {
    const chunk = slots.slice(i, i + SLOTS_PER_CHUNK);
    // A constant SQL text (unused places padded with slot -1), so each backend parses and plans it once.
    while (chunk.length < SLOTS_PER_CHUNK) chunk.push(-1n);
    chunks.push(chunk);
  }
  const inChunk = `${SLOT_SQL} IN (${new Array(SLOTS_PER_CHUNK).fill('?').join(', ')})`;
  // The exact id over every day at once (PostgreSQL runs the days on separate connections), so it comes
  // first even when newer calls share it as a prefix.
  const exact = (
    await Promise.all(
      chunks.map((chunk) =>
        db.all(
          `SELECT ${cols} FROM tool_calls WHERE ${inChunk} AND ${id} = ? AND call_id IS NOT NULL LIMIT ${LIMIT}`,
          [...chunk, q],
        ),
      ),
    )
  )
    .flat()
    .map(hit);
  const end = prefixEnd(q);
  const similar: ReturnType<typeof hit>[] = [];
  const sql = `SELECT ${cols} FROM tool_calls
    WHERE ${inChunk} AND ${id} > ? ${end === null ? '' : `AND ${id} < ?`} AND call_id IS NOT NULL
    LIMIT ${CHUNK_ROWS}`;
  // Prefixes day by day, newest first, until enough are found.
  for (const chunk of chunks) {
    if (similar.length >= LIMIT) break;
    const rows = await db.all(sql, end === null ? [...chunk, q] : [...chunk, q, end]);
    similar.push(...rows.map(hit));
  }
  return [...exact.sort(newestFirst).slice(0, LIMIT), ...similar.sort(newestFirst)]
    .slice(0, LIMIT)
    .map(({ at: _at, ...h }) => h);
}
