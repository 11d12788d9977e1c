// SQLite's lookup of stored parts of logical calls by their open links (sql/link-sql.ts, decision 0054), for the
// writer: one writer per file, so nothing is locked; the traces of the rows found are remembered with their row
// numbers, so loop detection re-reads the trace of a call that a part in another trace extended.
import type Database from 'better-sqlite3';
import type { LinkedCall, PartLinks } from '../batch-rows.js';
import type { Row } from '../sql/db.js';
import { linkedCallOf, linkedCallsQueries, SQLITE_MEMBER } from '../sql/link-sql.js';

/** The stored rows `links` name; each row's trace id and number added to `seqs` (the batch's trace numbers). */
export function linkedRows(
  db: Database.Database,
  links: PartLinks,
  seqs: Map<string, number>,
): LinkedCall[] {
  const out: LinkedCall[] = [];
  for (const q of linkedCallsQueries(SQLITE_MEMBER, links))
    for (const r of db
      .prepare(q.sql)
      .safeIntegers(true)
      .all(...q.args) as Row[]) {
      const linked = linkedCallOf(r);
      if (!seqs.has(linked.traceId)) seqs.set(linked.traceId, linked.seq);
      out.push(linked);
    }
  return out;
}
