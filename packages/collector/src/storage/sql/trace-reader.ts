// The spans of stored traces as read back: their blocks unpacked and decoded (span-codec.ts), in start order.
import { unpackBlock } from '../block-packing.js';
import type { StoredSpan } from '../contract.js';
import { decodeSpans } from '../span-codec.js';
import { type ReadDb, type Row, text } from './db.js';

/** Most blocks read per trace, and most traces per query. */
const BLOCKS_PER_TRACE = 10_000;
const TRACES_PER_QUERY = 100;

/** The stored spans of the traces `seqs`, in start order (a parent before its children at equal times). */
export async function spansOf(db: ReadDb, seqs: bigint[]): Promise<StoredSpan[]> {
  const spans: StoredSpan[] = [];
  // One query per chunk of traces, not one per trace: a round trip costs more than a row on PostgreSQL.
  for (let i = 0; i < seqs.length; i += TRACES_PER_QUERY) {
    const chunk = seqs.slice(i, i + TRACES_PER_QUERY);
    const rows = await db.all(
      `SELECT t.trace_id, b.spans, b.packed, r.attributes AS resource
         FROM span_blocks b JOIN traces t ON t.seq = b.trace_seq JOIN resources r ON r.id = b.resource_id
        WHERE b.trace_seq IN (${chunk.map(() => '?').join(', ')}) ORDER BY b.trace_seq, b.id
        LIMIT ${BLOCKS_PER_TRACE * chunk.length}`,
      chunk,
    );
    spans.push(...decodeRows(db, rows));
  }
  return inStartOrder(spans);
}

/**
 * The stored spans of one trace by its id, or null when it is not stored: the trace and its blocks in one
 * query, so GET /api/traces/:id waits for one round trip here, not two.
 */
export async function traceSpans(db: ReadDb, traceId: string): Promise<StoredSpan[] | null> {
  const rows = await db.all(
    `SELECT t.trace_id, b.id AS block, b.spans, b.packed, r.attributes AS resource
       FROM traces t LEFT JOIN span_blocks b ON b.trace_seq = t.seq LEFT JOIN resources r ON r.id = b.resource_id
      WHERE t.trace_id = ? ORDER BY b.id LIMIT ${BLOCKS_PER_TRACE}`,
    [traceId],
  );
  if (rows.length === 0) return null;
  // A trace without blocks reads as one row without a block: stored, with no spans. A block whose text is
  // missing is kept, so decodeRows reports it as damaged.
  const blocks = rows.filter((r) => r.block !== null && r.block !== undefined);
  return inStartOrder(decodeRows(db, blocks));
}

function decodeRows(db: ReadDb, rows: readonly Row[]): StoredSpan[] {
  const spans: StoredSpan[] = [];
  const damaged = (what: string) => db.damaged(what);
  for (const row of rows) {
    const traceId = text(row.trace_id);
    // Packed since SQLite v10 / PostgreSQL v6; JSON text in `spans` before (decision 0011).
    const json = unpackBlock(row.packed ?? row.spans, (what) =>
      damaged(`${what} in trace ${traceId}; its spans are left out`),
    );
    if (json === null) continue;
    spans.push(...decodeSpans(traceId, json, parseJson(row.resource, {}), damaged));
  }
  return spans;
}

/** Equal start times are common (clock granularity): then a parent comes before its children. */
function inStartOrder(spans: StoredSpan[]): StoredSpan[] {
  const depth = depthsOf(spans);
  spans.sort((a, b) => {
    const x = a.startNs;
    const y = b.startNs;
    return x < y ? -1 : x > y ? 1 : (depth.get(a.spanId) ?? 0) - (depth.get(b.spanId) ?? 0);
  });
  return spans;
}

function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

/** Depth of each span in its trace's tree (roots 0); cycles and missing parents count as roots. */
function depthsOf(rows: StoredSpan[]): Map<string, number> {
  const parent = new Map(rows.map((r) => [r.spanId, r.parentSpanId]));
  const depth = new Map<string, number>();
  for (const r of rows) {
    let d = 0;
    let cur = r.parentSpanId;
    const seen = new Set<string>([r.spanId]);
    while (cur && parent.has(cur) && !seen.has(cur) && d < 1000) {
      seen.add(cur);
      d++;
      cur = parent.get(cur) ?? null;
    }
    depth.set(r.spanId, d);
  }
  return depth;
}
