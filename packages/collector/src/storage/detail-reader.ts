// The dashboard's tool page (GET /api/tools/:name) and search (GET /api/search): small indexed queries over
// the per-tool detector tables and the rollups.
import type Database from 'better-sqlite3';
import type { SearchResult, ToolDetailResponse } from '../api/schemas.js';
import { callBucket } from './call-bucket.js';
import { bucketBounds } from './histogram.js';
import type { ToolSchemaRow, ToolShapeRow } from './schema.js';
import { isoOf as iso, NS_PER_MINUTE } from './sqlite-reader.js';
import { aggregateTools, emptyToolAgg, statsOf } from './tool-stats.js';

type SchemaRow = Omit<ToolSchemaRow, 'tool'>;
type ShapeRow = Omit<ToolShapeRow, 'tool'>;
type PathRow = { code: string; path: string; count: bigint; last_trace_id: string };

/** Everything the tool page shows for [sinceNs, untilNs), or null when the tool was never seen. */
export function toolDetail(
  db: Database.Database,
  name: string,
  sinceNs: bigint,
  untilNs: bigint,
): ToolDetailResponse | null {
  const agg = aggregateTools(db, sinceNs, untilNs, name).get(name);
  // Versions over all time: a silent change is visible only next to what came before it.
  const schemas = db
    .prepare(
      'SELECT version, schema_hash, first_ns, last_ns, calls, last_trace_id FROM tool_schemas WHERE tool = ? ORDER BY first_ns LIMIT 200',
    )
    .safeIntegers(true)
    .all(name) as SchemaRow[];
  if (!agg && schemas.length === 0) {
    const seen = db.prepare('SELECT 1 FROM tool_hours WHERE tool = ? LIMIT 1').get(name);
    if (!seen) return null;
  }
  const hashesPerVersion = new Map<string, number>();
  for (const s of schemas)
    hashesPerVersion.set(s.version, (hashesPerVersion.get(s.version) ?? 0) + 1);
  const paths = db
    .prepare(
      `SELECT code, path, SUM(count) AS count, MAX(minute) AS last_minute, last_trace_id FROM tool_paths
        WHERE tool = ? AND minute >= ? AND minute <= ? GROUP BY code, path ORDER BY count DESC, path LIMIT 25`,
    )
    .safeIntegers(true)
    .all(name, sinceNs / NS_PER_MINUTE, untilNs / NS_PER_MINUTE) as PathRow[];
  const shapes = db
    .prepare(
      `SELECT shape, first_ns, last_ns, calls, invalid FROM tool_shapes
        WHERE tool = ? AND last_ns >= ? AND first_ns < ? ORDER BY calls DESC, shape LIMIT 50`,
    )
    .safeIntegers(true)
    .all(name, sinceNs, untilNs) as ShapeRow[];
  const a = agg ?? emptyToolAgg();
  return {
    name,
    stats: statsOf(name, a),
    versions: schemas.map((s) => ({
      version: s.version,
      schemaHash: s.schema_hash,
      firstSeen: iso(s.first_ns),
      lastSeen: iso(s.last_ns),
      calls: Number(s.calls),
      lastTraceId: s.last_trace_id,
      silentChange: (hashesPerVersion.get(s.version) ?? 0) > 1,
    })),
    failingPaths: paths.map((p) => ({
      code: p.code,
      path: p.path,
      count: Number(p.count),
      lastTraceId: p.last_trace_id,
    })),
    shapes: shapes.map((s) => ({
      shape: s.shape,
      firstSeen: iso(s.first_ns),
      lastSeen: iso(s.last_ns),
      calls: Number(s.calls),
      invalid: Number(s.invalid),
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
  };
}

const HEX32 = /^[0-9a-f]{32}$/;

/** What a search box entry can mean: a trace id, a conversation id, a call id, a tool name or an error code. */
export function search(db: Database.Database, query: string, sinceNs: bigint): SearchResult[] {
  const q = query.trim();
  const results: SearchResult[] = [];
  if (q === '') return results;
  const lower = q.toLowerCase();
  if (HEX32.test(lower) && db.prepare('SELECT 1 FROM traces WHERE trace_id = ?').get(lower)) {
    results.push({ kind: 'trace', value: lower, label: `trace ${lower}` });
  }
  if (db.prepare('SELECT 1 FROM conversation_traces WHERE conversation_id = ? LIMIT 1').get(q)) {
    results.push({ kind: 'conversation', value: q, label: `conversation ${q}` });
  }
  // One bucket of the window, newest first, from the (call_bucket, start_ns, call_id) index (call-bucket.ts).
  const calls = db
    .prepare(
      `SELECT trace_id, span_id, tool FROM tool_calls
       WHERE call_bucket = ? AND start_ns >= ? AND call_id = ? AND call_id IS NOT NULL
       ORDER BY start_ns DESC LIMIT 10`,
    )
    .all(callBucket(q), sinceNs, q) as { trace_id: string; span_id: string; tool: string }[];
  for (const c of calls) {
    results.push({
      kind: 'call',
      value: c.span_id,
      label: `call ${q} (${c.tool})`,
      traceId: c.trace_id,
    });
  }
  const hour = sinceNs / (60n * NS_PER_MINUTE);
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const tools = db
    .prepare(
      `SELECT DISTINCT tool FROM tool_hours WHERE hour >= ? AND tool LIKE ? ESCAPE '\\' ORDER BY tool LIMIT 20`,
    )
    .pluck()
    .all(hour, like) as string[];
  for (const t of tools) results.push({ kind: 'tool', value: t, label: `tool ${t}` });
  const codes = db
    .prepare(
      `SELECT DISTINCT code FROM tool_hours WHERE hour >= ? AND code != '' AND code LIKE ? ESCAPE '\\' ORDER BY code LIMIT 10`,
    )
    .pluck()
    .all(hour, like) as string[];
  for (const c of codes) results.push({ kind: 'code', value: c, label: `code ${c}` });
  return results;
}
