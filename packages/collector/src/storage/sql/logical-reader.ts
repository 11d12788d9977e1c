// The stored calls of some traces that carry logical facts (span-reader.ts TraceReader.logicalCalls): what the
// writers made of the parts of logical calls, across traces (decision 0054), for the trace page. A trace's rows
// by its number (the trace_seq index), those with facts only: almost every call has none.
import type { RecordedCall } from '../../calls/call-record.js';
import type { StoredLogicalCall } from '../contract.js';
import { num, type ReadDb, type Row } from './db.js';

/** Most rows read. */
const MOST = 10_000;

export async function logicalCalls(
  db: ReadDb,
  traceIds: readonly string[],
  callOf: (r: Row) => RecordedCall,
): Promise<StoredLogicalCall[]> {
  if (traceIds.length === 0) return [];
  const rows = await db.all(
    `SELECT * FROM tool_calls
      WHERE ${db.inRows('trace_seq', `SELECT seq FROM traces WHERE trace_id IN (${traceIds.map(() => '?').join(', ')})`)}
        AND logical IS NOT NULL
      LIMIT ${MOST}`,
    traceIds,
  );
  return rows.map((r) => ({ call: callOf(r), part: num(r.part) }));
}
