// Search by call id (gen_ai.tool.call.id): the calls with exactly that id, then calls whose id starts with
// it, from the (block, call_id) index (call-block.ts). Prefixes are read newest blocks first, a chunk of blocks
// per query, stopping once enough are found: "call_" matches every call, and must not read a week of them.

import { BLOCK_SQL, blocksSince, prefixEnd } from '../call-block.js';
import type { SearchHit } from '../contract.js';
import { big, type ReadDb, type Row, text } from './db.js';

/** Blocks per query when reading newest first: about half a million calls. */
const BLOCKS_PER_CHUNK = 128;

const LIMIT = 10;
/** Rows a chunk may return, from its newest blocks: more than LIMIT, so the newest are kept after sorting. */
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
  const blocks = await blocksSince(db, sinceNs);
  const chunks: bigint[][] = [];
  for (let i = 0; i < blocks.length; i += BLOCKS_PER_CHUNK) {
    const chunk = blocks.slice(i, i + BLOCKS_PER_CHUNK);
    // A constant SQL text (unused places padded with block -1), so each backend parses and plans it once.
    while (chunk.length < BLOCKS_PER_CHUNK) chunk.push(-1n);
    chunks.push(chunk);
  }
  const inChunk = `${BLOCK_SQL} IN (${new Array(BLOCKS_PER_CHUNK).fill('?').join(', ')})
    AND start_ns >= ? AND start_ns < ?`;
  // The exact id over every chunk at once (PostgreSQL runs them on separate connections), so it comes first
  // even when newer calls share it as a prefix.
  const exact = (
    await Promise.all(
      chunks.map((chunk) =>
        db.all(
          `SELECT ${cols} FROM tool_calls WHERE ${inChunk} AND ${id} = ? AND call_id IS NOT NULL LIMIT ${LIMIT}`,
          [...chunk, sinceNs, untilNs, q],
        ),
      ),
    )
  )
    .flat()
    .map(hit);
  const end = prefixEnd(q);
  const similar: ReturnType<typeof hit>[] = [];
  // The page's ids from the (block, call_id) index alone, then the view for those rows only. With the LIMIT
  // outside the view's join, PostgreSQL walked the calls in trace order to merge them with their traces,
  // filtering out every older call before the chunk's blocks (docs/benchmarks.md: 368 ms for "call_" at 1M
  // calls). In the index's own order, newest block first, the scan stops after CHUNK_ROWS entries.
  const sql = `SELECT ${cols} FROM tool_calls WHERE id IN (
    SELECT id FROM tool_call_rows
      WHERE ${inChunk} AND ${id} > ? ${end === null ? '' : `AND ${id} < ?`} AND call_id IS NOT NULL
      ORDER BY ${BLOCK_SQL} DESC, ${id} DESC LIMIT ${CHUNK_ROWS})`;
  // Prefixes chunk by chunk, newest first, until enough are found.
  for (const chunk of chunks) {
    if (similar.length >= LIMIT) break;
    const window = [...chunk, sinceNs, untilNs];
    const rows = await db.all(sql, end === null ? [...window, q] : [...window, q, end]);
    similar.push(...rows.map(hit));
  }
  return [...exact.sort(newestFirst).slice(0, LIMIT), ...similar.sort(newestFirst)]
    .slice(0, LIMIT)
    .map(({ at: _at, ...h }) => h);
}
