// The dashboard's tool page (GET /api/tools/:name) and search (GET /api/search): small indexed queries over
// the per-tool detector tables and the rollups.
import type { SearchHit, ToolDetail } from '../contract.js';
import { bucketBounds } from '../histogram.js';
import { emptySizes, mergeSizes, sizeBounds } from '../result-sizes.js';
import { searchCalls } from './call-search.js';
import { readContractSummaries } from './contract-reader.js';
import { big, isoOf as iso, NS_PER_HOUR, NS_PER_MINUTE, num, type ReadDb, text } from './db.js';
import { exceptionTypes } from './exception-reader.js';
import { aggregateTools, emptyToolAgg, sourcesOf, statsOf, type ToolAgg } from './tool-stats.js';

/** Everything the tool page shows for [sinceNs, untilNs), or null when the tool was never seen. */
export async function toolDetail(
  db: ReadDb,
  name: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<ToolDetail | null> {
  const agg = (await aggregateTools(db, sinceNs, untilNs, name)).get(name);
  // Versions over all time: a silent change is visible only next to what came before it.
  const schemas = await db.all(
    `SELECT version, schema_hash, first_ns, last_ns, calls, last_trace_id FROM tool_schemas
      WHERE tool = ? ORDER BY first_ns LIMIT 200`,
    [name],
  );
  if (!agg && schemas.length === 0) {
    const seen = await db.all('SELECT 1 AS one FROM tool_hours WHERE tool = ? LIMIT 1', [name]);
    if (seen.length === 0) return null;
  }
  const hashesPerVersion = new Map<string, number>();
  for (const s of schemas) {
    const v = text(s.version);
    hashesPerVersion.set(v, (hashesPerVersion.get(v) ?? 0) + 1);
  }
  const paths = await db.all(
    `SELECT code, path, SUM(count) AS count, MAX(last_trace_id) AS last_trace_id FROM tool_paths
      WHERE tool = ? AND minute >= ? AND minute <= ? GROUP BY code, path ORDER BY count DESC, path LIMIT 25`,
    [name, sinceNs / NS_PER_MINUTE, untilNs / NS_PER_MINUTE],
  );
  const shapes = await db.all(
    `SELECT shape, first_ns, last_ns, calls, invalid FROM tool_shapes
      WHERE tool = ? AND last_ns >= ? AND first_ns < ? ORDER BY calls DESC, shape LIMIT 50`,
    [name, sinceNs, untilNs],
  );
  const a = agg ?? emptyToolAgg();
  return {
    name,
    stats: statsOf(
      name,
      a,
      (await sourcesOf(db, sinceNs, untilNs, 'any', name)).get(name) ?? [],
      (await readContractSummaries(db, name))[0],
      (await exceptionTypes(db, sinceNs, untilNs, name)).get(name),
    ),
    versions: schemas.map((s) => ({
      version: text(s.version),
      schemaHash: text(s.schema_hash),
      firstSeen: iso(big(s.first_ns)),
      lastSeen: iso(big(s.last_ns)),
      calls: num(s.calls),
      lastTraceId: text(s.last_trace_id),
      silentChange: (hashesPerVersion.get(text(s.version)) ?? 0) > 1,
    })),
    failingPaths: paths.map((p) => ({
      code: text(p.code),
      path: text(p.path),
      count: num(p.count),
      lastTraceId: text(p.last_trace_id),
    })),
    shapes: shapes.map((s) => ({
      shape: text(s.shape),
      firstSeen: iso(big(s.first_ns)),
      lastSeen: iso(big(s.last_ns)),
      calls: num(s.calls),
      invalid: num(s.invalid),
    })),
    latency: [...a.hist.entries()]
      .sort(([x], [y]) => x - y)
      .map(([bucket, count]) => {
        const b = bucketBounds(bucket);
        return {
          fromMs: Math.round(b.fromMs * 1000) / 1000,
          toMs: Math.round(b.toMs * 1000) / 1000,
          count,
        };
      }),
    resultBytes: resultBuckets(a),
  };
}

/** Result bytes of every version together, bucket by bucket, smallest first. */
function resultBuckets(a: ToolAgg): ToolDetail['resultBytes'] {
  const all = emptySizes();
  for (const v of a.sizes.values()) mergeSizes(all, v);
  return [...all.bytes.entries()]
    .sort(([x], [y]) => x - y)
    .map(([bucket, count]) => {
      const b = sizeBounds(bucket);
      return { fromBytes: Math.ceil(b.from), toBytes: Math.ceil(b.to), count };
    });
}

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
  return found.length > 0 ? [{ kind: 'trace', value: lower, label: `trace ${lower}` }] : [];
}

async function conversationHits(db: ReadDb, q: string): Promise<SearchHit[]> {
  const results: SearchHit[] = [];
  const conversation = await db.all(
    'SELECT 1 AS one FROM conversation_traces WHERE conversation_id = ? LIMIT 1',
    [q],
  );
  if (conversation.length > 0)
    results.push({ kind: 'conversation', value: q, label: `conversation ${q}` });
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
    const id = text(r.conversation_id);
    results.push({ kind: 'conversation', value: id, label: `conversation ${id}` });
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
    ...tools.map(
      (t): SearchHit => ({ kind: 'tool', value: text(t.tool), label: `tool ${text(t.tool)}` }),
    ),
    ...codes.map(
      (c): SearchHit => ({ kind: 'code', value: text(c.code), label: `code ${text(c.code)}` }),
    ),
  ];
}
