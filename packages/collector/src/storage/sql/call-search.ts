// Search by call id (gen_ai.tool.call.id): the calls with exactly that id, then calls whose id starts with
// it, from the (block, call_id) index (call-block.ts). Prefixes are read newest blocks first, a chunk of blocks
// per query, stopping once enough are found: "call_" matches every call, and must not read a week of them.

import { BLOCK_SQL, blocksSince, prefixEnd } from '../call-block.js';
import type { SearchHit } from '../contract.js';
import { big, type ReadDb, type Row, type SqlValue, text } from './db.js';

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
  const blocks = await blocksSince(db, sinceNs);
  const chunks: bigint[][] = [];
  for (let i = 0; i < blocks.length; i += BLOCKS_PER_CHUNK) {
    chunks.push(blocks.slice(i, i + BLOCKS_PER_CHUNK));
  }
  // The exact id over every chunk at once (PostgreSQL runs them on separate connections), so it comes first
  // even when newer calls share it as a prefix.
  const exact = (
    await Promise.all(
      chunks.map((chunk) => {
        const { sql, params } = exactQuery(db, { chunk, sinceNs, untilNs, q });
        return db.all(sql, params);
      }),
    )
  )
    .flat()
    .map(hit);
  const similar: ReturnType<typeof hit>[] = [];
  // Prefixes chunk by chunk, newest first, until enough are found.
  for (const chunk of chunks) {
    if (similar.length >= LIMIT) break;
    const { sql, params } = prefixQuery(db, { chunk, sinceNs, untilNs, q });
    similar.push(...(await db.all(sql, params)).map(hit));
  }
  return [...exact.sort(newestFirst).slice(0, LIMIT), ...similar.sort(newestFirst)]
    .slice(0, LIMIT)
    .map(({ at: _at, ...h }) => h);
}

type Query = { sql: string; params: SqlValue[] };

/** What one chunk's query looks for: `q` among the calls of `chunk`'s blocks started within the window. */
export type ChunkSearch = { chunk: readonly bigint[]; sinceNs: bigint; untilNs: bigint; q: string };

const COLS = 'trace_id, span_id, tool, call_id, start_ns';

/**
 * Rows of a chunk of blocks started within the window: a constant SQL text (unused places padded with block
 * -1), so each backend parses and plans it once.
 */
function inChunk(chunk: readonly bigint[], sinceNs: bigint, untilNs: bigint): Query {
  const padded = [...chunk];
  while (padded.length < BLOCKS_PER_CHUNK) padded.push(-1n);
  return {
    sql: `${BLOCK_SQL} IN (${new Array(BLOCKS_PER_CHUNK).fill('?').join(', ')})
      AND start_ns >= ? AND start_ns < ?`,
    params: [...padded, sinceNs, untilNs],
  };
}

/** The calls of a chunk whose id is `q`. */
function exactQuery(db: ReadDb, { chunk, sinceNs, untilNs, q }: ChunkSearch): Query {
  const where = inChunk(chunk, sinceNs, untilNs);
  return {
    sql: `SELECT ${COLS} FROM tool_calls
      WHERE ${where.sql} AND ${db.byteOrder('call_id')} = ? AND call_id IS NOT NULL LIMIT ${LIMIT}`,
    params: [...where.params, q],
  };
}

/**
 * The calls of a chunk whose id starts with `q` (and is longer), newest block first. The page's ids come from
 * the (block, call_id) index alone, in its own order, so the scan stops after CHUNK_ROWS entries; the view is
 * read for those rows only. With the LIMIT outside the view's join, PostgreSQL walked the calls in trace order
 * to merge them with their traces, filtering out every call older than the chunk first (docs/benchmarks.md:
 * 368 ms for "call_" at 1M calls).
 */
export function prefixQuery(db: ReadDb, { chunk, sinceNs, untilNs, q }: ChunkSearch): Query {
  const id = db.byteOrder('call_id');
  const where = inChunk(chunk, sinceNs, untilNs);
  const end = prefixEnd(q);
  return {
    sql: `SELECT ${COLS} FROM tool_calls WHERE id IN (
      SELECT id FROM tool_call_rows
        WHERE ${where.sql} AND ${id} > ? ${end === null ? '' : `AND ${id} < ?`} AND call_id IS NOT NULL
        ORDER BY ${BLOCK_SQL} DESC, ${id} DESC LIMIT ${CHUNK_ROWS})`,
    params: end === null ? [...where.params, q] : [...where.params, q, end],
  };
}
