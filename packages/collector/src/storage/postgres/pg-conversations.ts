// The conversations a PostgreSQL batch counts calls of, locked in id order (after its traces and link hashes,
// before its detector rows: pg-writer.ts has the lock order), with the key filters the loop stage reads and
// writes back (pg-rows.ts).
import type pg from 'pg';
import type { CallColumns } from '../../calls/call-columns.js';
import { prepared } from './pg-db.js';
import type { Later } from './pg-transaction.js';

/**
 * The conversations a batch locks: those of all its calls, in id order. A superset of those the loop stage counts
 * calls of (a duplicate's, a joined part's, a paired client row's are the same conversation's in practice), known
 * before the batch's rows are made, so the locks can be written with the batch's first statement (pg-writer.ts).
 * Locking one more conversation is one more row the batch waits for, never a deadlock: the order is the same.
 */
export function conversationsOf(calls: CallColumns): string[] {
  const ids = new Set<string>();
  for (const id of calls.conversationId) if (id) ids.add(id);
  return [...ids].sort();
}

/** The conversations' rows locked (made when new) and their filters as committed when the locks were granted. */
export async function lockedConversationFilters(
  client: pg.PoolClient,
  later: Later,
  conversationIds: readonly string[],
): Promise<Map<string, unknown>> {
  const filters = new Map<string, unknown>();
  if (conversationIds.length === 0) return filters;
  // A conflict's DO UPDATE whose WHERE is false locks the row without writing a new version of it: the
  // filters step writes each conversation's row once per batch, not twice (its filter, 0.5–16 KB, and WAL).
  later(
    client.query(
      prepared(
        'toolscope_conversation_locks',
        `INSERT INTO conversations (conversation_id, keys)
       SELECT id, '\\x'::bytea FROM unnest($1::text[]) AS c(id) ORDER BY id
       ON CONFLICT (conversation_id) DO UPDATE SET keys = excluded.keys WHERE false`,
        [conversationIds],
      ),
    ),
  );
  // Read once the locks are held, in a statement of its own (written with the lock, run after it): its snapshot
  // is taken then, so it has the last filter another collector committed before the lock was granted. In
  // base64, a third over the filter's size, decoded natively: as bytea's hex text it was twice the size, and
  // copied again to be decoded.
  const read = client.query<{ conversation_id: string; keys: string | null }>(
    prepared(
      'toolscope_conversation_filters_b64',
      `SELECT conversation_id, encode(keys, 'base64') AS keys FROM conversations
       WHERE conversation_id = ANY($1::text[])`,
      [conversationIds],
    ),
  );
  // Also among the transaction's statements in the order sent: should it fail first, its failure is the one
  // reported (pg-transaction.ts rootFailure), not that of a read awaited before it.
  later(read);
  const locked = await read;
  for (const r of locked.rows)
    filters.set(r.conversation_id, r.keys === null ? null : Buffer.from(r.keys, 'base64'));
  return filters;
}
