// A page of stored calls (SpanReader.calls), newest first, for every SQL backend: the filter as one WHERE, read
// through the time index, or one client's calls read only where its rollups say they can be (client-ranges.ts).
import type { RecordedCall } from '../../calls/call-record.js';
import { blocksSince, blockWhere } from '../call-block.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import type { CallFilter, CallPage } from '../contract.js';
import { clientRanges, type TimeRange } from './client-ranges.js';
import { clientCallsWhere } from './client-sql.js';
import { CODE_KEY_SQL } from './code-sql.js';
import { big, type ReadDb, type Row, type SqlValue } from './db.js';

/** The page of calls `f` asks for, each row read by `callOf`. */
export async function callPage(
  db: ReadDb,
  f: CallFilter,
  callOf: (r: Row) => RecordedCall,
): Promise<CallPage> {
  // With a call id, the (block, call_id) index must lead: against a bare start_ns range SQLite takes the time
  // index once the IN list passes about 200 blocks (a million calls) and reads every call of the window.
  const start = f.callId !== undefined ? '+start_ns' : 'start_ns';
  const where: string[] = [sideWhere(f.side ?? 'any')];
  const args: SqlValue[] = [];
  const add = (clause: string, ...values: SqlValue[]) => {
    where.push(clause);
    args.push(...values);
  };
  if (f.tool !== undefined) add(TOOL_IS, f.tool);
  if (f.version !== undefined) add('version = ?', f.version);
  if (f.code !== undefined) {
    if (f.code === 'OK') add('is_error = 0');
    else add(`${CODE_KEY_SQL} = ?`, f.code);
  }
  if (f.callId !== undefined)
    add(
      `${blockWhere(await blocksSince(db, f.sinceNs))} AND ${db.byteOrder('call_id')} = ? AND call_id IS NOT NULL`,
      f.callId,
    );
  if (f.errors !== undefined) add(f.errors ? 'is_error = 1' : 'is_error = 0');
  if (f.client !== undefined) {
    const client = clientCallsWhere(f.client);
    add(client.sql, ...client.params);
  }
  if (f.traceId !== undefined)
    add('trace_seq = (SELECT seq FROM traces WHERE trace_id = ?)', f.traceId);
  if (f.conversationId !== undefined)
    add(
      `${db.inRows('trace_seq', 'SELECT trace_seq FROM conversation_traces WHERE conversation_id = ?')} AND conversation_id = ?`,
      f.conversationId,
      f.conversationId,
    );
  if (f.cursor)
    add(
      '(start_ns < ? OR (start_ns = ? AND id < ?))',
      f.cursor.startNs,
      f.cursor.startNs,
      f.cursor.id,
    );
  // Rows after the cursor's are not wanted: the window ends just past its start.
  const untilNs = f.cursor && f.cursor.startNs + 1n < f.untilNs ? f.cursor.startNs + 1n : f.untilNs;
  // A trace, a conversation or a call id already narrows the read to a few rows.
  const ranges: TimeRange[] =
    f.client !== undefined &&
    f.traceId === undefined &&
    f.conversationId === undefined &&
    f.callId === undefined
      ? await clientRanges(db, f.client, f.sinceNs, untilNs)
      : [{ fromNs: f.sinceNs, untilNs }];
  // The ranges are disjoint and newest first: their rows, each range's newest first, are the page in order.
  const rows: Row[] = [];
  for (const range of ranges) {
    const found = await db.all(
      `SELECT * FROM tool_calls WHERE ${start} >= ? AND ${start} < ? AND ${where.join(' AND ')}
        ORDER BY start_ns DESC, id DESC LIMIT ?`,
      [range.fromNs, range.untilNs, ...args, f.limit + 1 - rows.length],
    );
    rows.push(...found);
    if (rows.length > f.limit) break;
  }
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > f.limit && last
      ? Buffer.from(`${big(last.start_ns)}:${big(last.id)}`).toString('base64url')
      : null;
  return { calls: page.map(callOf), nextCursor };
}
