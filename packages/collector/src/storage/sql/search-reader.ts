// Search (GET /api/search): what a term can mean, from small indexed lookups over traces, conversations, call
// ids (call-search.ts) and the hourly rollups' tools and codes.
import type { SearchHit } from '../contract.js';
import { searchCalls } from './call-search.js';
import { NS_PER_HOUR, type ReadDb, text } from './db.js';

const HEX32 = /^[0-9a-f]{32}$/;

/** What a search box entry can mean: a trace id, a conversation id, a call id, a tool name or an error code. */
export async function search(db: ReadDb, query: string, sinceNs: bigint): Promise<SearchHit[]> {
  const q = query.trim();
  if (q === '') return [];
  // Independent lookups, asked together: on PostgreSQL each takes its own connection, so the answer waits
  // for the slowest instead of their sum (SQLite's reader runs them one after another either way).
  const found = await Promise.all([
    traceHit(db, q),
    conversationHits(db, q),
    // Until an hour ahead: a caller's clock may run a little fast.
    searchCalls(db, q, sinceNs, BigInt(Date.now() + 3_600_000) * 1_000_000n),
    toolAndCodeHits(db, q, sinceNs),
  ]);
  return found.flat();
}

async function traceHit(db: ReadDb, q: string): Promise<SearchHit[]> {
  const lower = q.toLowerCase();
  if (!HEX32.test(lower)) return [];
  const found = await db.all('SELECT 1 AS one FROM traces WHERE trace_id = ?', [lower]);
  return found.length > 0 ? [{ kind: 'trace', value: lower }] : [];
}

async function conversationHits(db: ReadDb, q: string): Promise<SearchHit[]> {
  const results: SearchHit[] = [];
  const conversation = await db.all(
    'SELECT 1 AS one FROM conversation_traces WHERE conversation_id = ? LIMIT 1',
    [q],
  );
  if (conversation.length > 0) results.push({ kind: 'conversation', value: q });
  // Conversations whose id starts with, then contains, what was typed, ignoring case: one row per conversation,
  // far fewer than calls ("conv-loop" finds conv-loop-7).
  // lower() folds ASCII only on SQLite; in byte order PostgreSQL's does the same, and skips its collation's
  // per-character cost (measured over 5,000 conversations in a C.UTF-8 database: 19 ms, 3.9 ms in byte order).
  const conversationId = db.byteOrder('conversation_id');
  const lowered = q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  const similar = await db.all(
    `SELECT conversation_id FROM conversations
      WHERE lower(${conversationId}) LIKE ? ESCAPE '\\' AND conversation_id != ?
      ORDER BY CASE WHEN lower(${conversationId}) LIKE ? ESCAPE '\\' THEN 0 ELSE 1 END, conversation_id
      LIMIT 10`,
    [`%${lowered}%`, q, `${lowered}%`],
  );
  for (const r of similar) {
    results.push({ kind: 'conversation', value: text(r.conversation_id) });
  }
  return results;
}

async function toolAndCodeHits(db: ReadDb, q: string, sinceNs: bigint): Promise<SearchHit[]> {
  const hour = sinceNs / NS_PER_HOUR;
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const [tools, codes] = await Promise.all([
    db.all(
      `SELECT DISTINCT tool FROM tool_hours WHERE hour >= ? AND tool LIKE ? ESCAPE '\\' ORDER BY tool LIMIT 20`,
      [hour, like],
    ),
    db.all(
      `SELECT DISTINCT code FROM tool_hours WHERE hour >= ? AND code != '' AND code LIKE ? ESCAPE '\\' ORDER BY code LIMIT 10`,
      [hour, like],
    ),
  ]);
  return [
    ...tools.map((t): SearchHit => ({ kind: 'tool', value: text(t.tool) })),
    ...codes.map((c): SearchHit => ({ kind: 'code', value: text(c.code) })),
  ];
}
