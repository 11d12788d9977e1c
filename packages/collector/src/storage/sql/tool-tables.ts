// The small per-tool tables the writer keeps (schema versions, input shapes, failing paths per minute) and the
// stored loop flags, as read: each query indexed or bounded by the number of tools.

import type { FailingPath, InputShape, SchemaVersion, StoredFlag } from '../read-records.js';
import { big, NS_PER_MINUTE, num, type ReadDb, type Row, text } from './db.js';

const toolIs = (tool: string | undefined) => (tool === undefined ? '' : ' AND tool = ?');
const toolArg = (tool: string | undefined) => (tool === undefined ? [] : [tool]);

function evidenceOf(value: unknown): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text(value));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function storedFlagOf(r: Row): StoredFlag {
  return {
    kind: text(r.kind),
    severity: r.severity === 'error' ? 'error' : 'warning',
    tool: text(r.tool),
    traceId: r.trace_id ? text(r.trace_id) : null,
    conversationId: r.conversation_id ? text(r.conversation_id) : null,
    count: num(r.count),
    firstNs: big(r.first_ns),
    lastNs: big(r.last_ns),
    summary: text(r.summary),
    evidence: evidenceOf(r.evidence),
  };
}

/** Stored loop flags active in the window, newest last activity first (at most 1,000). */
export async function storedFlags(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<StoredFlag[]> {
  const rows = await db.all(
    `SELECT kind, severity, tool, trace_id, conversation_id, count, first_ns, last_ns, summary, evidence
       FROM flags WHERE last_ns >= ? AND first_ns < ?${toolIs(tool)} ORDER BY last_ns DESC LIMIT 1000`,
    [sinceNs, untilNs, ...toolArg(tool)],
  );
  return rows.map(storedFlagOf);
}

const schemaVersionOf = (r: Row): SchemaVersion => ({
  tool: text(r.tool),
  version: text(r.version),
  schemaHash: text(r.schema_hash),
  firstNs: big(r.first_ns),
  lastNs: big(r.last_ns),
  calls: num(r.calls),
  lastTraceId: text(r.last_trace_id),
});

/** The (tool, version, hash) rows seen in the window. */
export async function schemaVersions(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<SchemaVersion[]> {
  const rows = await db.all(
    `SELECT tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id FROM tool_schemas
      WHERE last_ns >= ? AND first_ns < ?${toolIs(tool)}`,
    [sinceNs, untilNs, ...toolArg(tool)],
  );
  return rows.map(schemaVersionOf);
}

/** One tool's rows over all time, oldest first (at most 200). */
export async function toolVersions(db: ReadDb, tool: string): Promise<SchemaVersion[]> {
  const rows = await db.all(
    `SELECT tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id FROM tool_schemas
      WHERE tool = ? ORDER BY first_ns LIMIT 200`,
    [tool],
  );
  return rows.map(schemaVersionOf);
}

const shapeOf = (r: Row): InputShape => ({
  tool: text(r.tool),
  shape: text(r.shape),
  firstNs: big(r.first_ns),
  lastNs: big(r.last_ns),
  calls: num(r.calls),
  invalid: num(r.invalid),
});

/** Input shapes with refused calls seen since `sinceNs` (at most 500). */
export async function invalidShapes(
  db: ReadDb,
  sinceNs: bigint,
  tool?: string,
): Promise<InputShape[]> {
  const rows = await db.all(
    `SELECT tool, shape, first_ns, last_ns, calls, invalid FROM tool_shapes
      WHERE last_ns >= ? AND invalid > 0${toolIs(tool)} LIMIT 500`,
    [sinceNs, ...toolArg(tool)],
  );
  return rows.map(shapeOf);
}

/** One tool's shapes seen in the window, most used first (at most 50). */
export async function inputShapes(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<InputShape[]> {
  const rows = await db.all(
    `SELECT tool, shape, first_ns, last_ns, calls, invalid FROM tool_shapes
      WHERE tool = ? AND last_ns >= ? AND first_ns < ? ORDER BY calls DESC, shape LIMIT 50`,
    [tool, sinceNs, untilNs],
  );
  return rows.map(shapeOf);
}

const pathOf = (r: Row): FailingPath => ({
  tool: text(r.tool),
  code: text(r.code),
  path: text(r.path),
  count: num(r.count),
  lastTraceId: text(r.trace_id),
  firstMinute: num(r.first_minute),
  lastMinute: num(r.last_minute),
});

const PATH_COLUMNS = `tool, code, path, SUM(count) AS count, MAX(last_trace_id) AS trace_id,
              MIN(minute) AS first_minute, MAX(minute) AS last_minute`;

/** Failures per tool, code and path in the minutes of the window. */
export async function failingPaths(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<FailingPath[]> {
  const rows = await db.all(
    `SELECT ${PATH_COLUMNS} FROM tool_paths
      WHERE minute >= ? AND minute <= ?${toolIs(tool)} GROUP BY tool, code, path`,
    [sinceNs / NS_PER_MINUTE, untilNs / NS_PER_MINUTE, ...toolArg(tool)],
  );
  return rows.map(pathOf);
}

/** One tool's most frequent failing paths in the window (at most 25). */
export async function topFailingPaths(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<FailingPath[]> {
  const rows = await db.all(
    `SELECT ${PATH_COLUMNS} FROM tool_paths
      WHERE tool = ? AND minute >= ? AND minute <= ? GROUP BY tool, code, path ORDER BY count DESC, path LIMIT 25`,
    [tool, sinceNs / NS_PER_MINUTE, untilNs / NS_PER_MINUTE],
  );
  return rows.map(pathOf);
}

/** Whether an hourly rollup ever counted a call of the tool. */
export async function toolKnown(db: ReadDb, tool: string): Promise<boolean> {
  const seen = await db.all('SELECT 1 AS one FROM tool_hours WHERE tool = ? LIMIT 1', [tool]);
  return seen.length > 0;
}
