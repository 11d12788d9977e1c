// PostgreSQL's lookup of stored parts of logical calls by their open links (sql/link-sql.ts, decision 0054), safe
// with any number of collectors: the batch's link hashes are locked first (a transaction-scoped advisory lock per
// hash, taken in key order after the batch's traces and before its conversations: pg-writer.ts), so two batches
// carrying parts of one call, in different traces, run one after the other and the later finds the earlier's
// part. The rows found are locked too and read again: a call linked by two hashes at once (a task that asked for
// input) may be extended by a batch that locked the other hash.
import type pg from 'pg';
import type { LinkedCall, PartLinks } from '../batch-rows.js';
import type { Row } from '../sql/db.js';
import { linkedCallOf, linkedCallsQueries, PG_MEMBER } from '../sql/link-sql.js';
import { toDollars } from './pg-db.js';

/** pg_advisory_xact_lock's first key for link locks ("link" in ASCII); the second is the hash's hashtext. */
const LINK_LOCKS = 0x6c696e6b;

async function read(client: pg.PoolClient, links: PartLinks): Promise<LinkedCall[]> {
  const out: LinkedCall[] = [];
  for (const q of linkedCallsQueries(PG_MEMBER, links))
    for (const r of (await client.query(toDollars(q.sql), q.args)).rows as Row[])
      out.push(linkedCallOf(r));
  return out;
}

/**
 * The stored rows `links` name, their hashes locked for the transaction; each row's trace id and number added to
 * `seqs` (loop detection re-reads the trace of a call that a part in another trace extended).
 */
export async function lockedLinkedCalls(
  client: pg.PoolClient,
  links: PartLinks,
  seqs: Map<string, number>,
): Promise<LinkedCall[]> {
  if (links.locks.length === 0) return [];
  // Locked in key order: the projection takes the sorted rows in turn. Two hashes with one key share a lock.
  await client.query(
    `SELECT pg_advisory_xact_lock(${LINK_LOCKS}, k)
       FROM (SELECT DISTINCT hashtext(h) AS k FROM unnest($1::text[]) AS u(h) ORDER BY k) AS s`,
    [links.locks],
  );
  let found = await read(client, links);
  if (found.length > 0) {
    await client.query(
      'SELECT id FROM tool_call_rows WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE',
      [[...new Set(found.map((f) => f.call.row.id))]],
    );
    found = await read(client, links);
  }
  for (const f of found) if (!seqs.has(f.traceId)) seqs.set(f.traceId, f.seq);
  return found;
}
