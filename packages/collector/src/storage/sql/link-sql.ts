// The stored parts of logical calls by their open links (decision 0054), as SQL both backends run: an index per
// kind of link (`awaits`, `resumes`, a task's hash: calls/logical-call.ts), over the rows that hold facts and are
// no joined part (SQLite v16, PostgreSQL v12), and the lookup a writer makes with a batch's links (PartLinks).
// Partial indexes: the common call (no facts) adds nothing to them, and a row leaves them when it is joined.
import type { LinkedCall, PartLinks } from '../batch-rows.js';
import { STORED_CALL_COLUMNS, storedCallOf } from '../stored-calls.js';
import { num, type Row, text } from './db.js';

/** A member of the JSON text column `logical` as text, in a backend's SQL (the index's and the lookup's). */
export type JsonMember = (path: readonly string[]) => string;

export const SQLITE_MEMBER: JsonMember = (path) => `json_extract(logical, '$.${path.join('.')}')`;
export const PG_MEMBER: JsonMember = (path) => `(logical::jsonb #>> '{${path.join(',')}}')`;

/** The rows a link may name: facts, and not joined into another row's call (CALL_PART.joined = 1). */
const OPEN = 'logical IS NOT NULL AND part <> 1';

const KINDS = [
  { name: 'awaits', path: ['awaits'], links: (l: PartLinks) => l.awaits },
  { name: 'resumes', path: ['resumes'], links: (l: PartLinks) => l.resumes },
  { name: 'task', path: ['task', 'idHash'], links: (l: PartLinks) => l.tasks },
] as const;

/** Most rows one kind of link reads: the newest, should a hash be open on very many rows (decision 0054). */
const MOST = 1000;

/** The schema step: one partial index per kind of link, newest first within a hash. */
export function linkMigration(member: JsonMember): string {
  return KINDS.map(
    (k) =>
      `CREATE INDEX tool_call_rows_by_${k.name} ON tool_call_rows(${member(k.path)}, start_ns) WHERE ${OPEN};`,
  ).join('\n');
}

/** The lookups of `links`: a statement and its arguments per kind with hashes (none when the batch has none). */
export function linkedCallsQueries(
  member: JsonMember,
  links: PartLinks,
): { sql: string; args: string[] }[] {
  return KINDS.flatMap((k) => {
    const hashes = k.links(links);
    if (hashes.length === 0) return [];
    const sql = `SELECT ${STORED_CALL_COLUMNS}, trace_id FROM tool_calls
      WHERE ${OPEN} AND ${member(k.path)} IN (${hashes.map(() => '?').join(', ')})
      ORDER BY start_ns DESC LIMIT ${MOST}`;
    return [{ sql, args: hashes }];
  });
}

/** A lookup's row as a linked call (the same row may come from two kinds: the process stage keeps it once). */
export function linkedCallOf(r: Row): LinkedCall {
  return { traceId: text(r.trace_id), seq: num(r.trace_seq), call: storedCallOf(r) };
}
