// GET /api/flags data: stored retry-loop flags of the window, plus drift flags computed from the per-tool
// detector tables and the rollups. Each query is indexed or bounded by the number of tools.
import type Database from 'better-sqlite3';
import {
  DEFAULT_DRIFT_THRESHOLDS,
  type DriftThresholds,
  detectDrift,
  type PathRow,
  type SchemaRow,
  type ShapeRow,
} from '../detectors/drift.js';
import type { Flag } from '../detectors/flag.js';
import type { ToolSchemaRow, ToolShapeRow } from './schema.js';
import { isoOf as iso, NS_PER_MINUTE, type SqliteReader } from './sqlite-reader.js';

type FlagRow = {
  kind: string;
  severity: string;
  tool: string;
  trace_id: string | null;
  conversation_id: string | null;
  count: bigint;
  first_ns: bigint;
  last_ns: bigint;
  summary: string;
  evidence: string;
};

export type FlagFilter = { kind?: string | undefined; tool?: string | undefined };

export function readFlags(
  db: Database.Database,
  reader: SqliteReader,
  sinceNs: bigint,
  untilNs: bigint,
  filter: FlagFilter,
  thresholds: DriftThresholds = DEFAULT_DRIFT_THRESHOLDS,
): Flag[] {
  const stored = (
    db
      .prepare(
        `SELECT * FROM flags WHERE last_ns >= ? AND first_ns < ?${filter.tool ? ' AND tool = ?' : ''} ORDER BY last_ns DESC LIMIT 1000`,
      )
      .safeIntegers(true)
      .all(...(filter.tool ? [sinceNs, untilNs, filter.tool] : [sinceNs, untilNs])) as FlagRow[]
  ).map((r): Flag => {
    let evidence: Flag['evidence'] = {};
    try {
      evidence = JSON.parse(r.evidence) as Flag['evidence'];
    } catch {
      evidence = {};
    }
    const flag: Flag = {
      kind: r.kind as Flag['kind'],
      severity: r.severity === 'error' ? 'error' : 'warning',
      tool: r.tool,
      count: Number(r.count),
      firstSeen: iso(r.first_ns),
      lastSeen: iso(r.last_ns),
      summary: r.summary,
      evidence,
    };
    if (r.trace_id) flag.traceId = r.trace_id;
    if (r.conversation_id) flag.conversationId = r.conversation_id;
    return flag;
  });

  const window = untilNs - sinceNs;
  const recent = window / 4n > NS_PER_MINUTE ? window / 4n : NS_PER_MINUTE;
  const splitNs = untilNs - recent > sinceNs ? untilNs - recent : sinceNs;
  const toolFilter = filter.tool ? ' AND tool = ?' : '';
  const toolArg = filter.tool ? [filter.tool] : [];
  const schemas = (
    db
      .prepare(
        `SELECT tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id FROM tool_schemas WHERE last_ns >= ? AND first_ns < ?${toolFilter}`,
      )
      .safeIntegers(true)
      .all(sinceNs, untilNs, ...toolArg) as ToolSchemaRow[]
  ).map(
    (r): SchemaRow => ({
      tool: r.tool,
      version: r.version,
      hash: r.schema_hash,
      firstNs: r.first_ns,
      lastNs: r.last_ns,
      calls: Number(r.calls),
      traceId: r.last_trace_id,
    }),
  );
  const shapes = (
    db
      .prepare(
        `SELECT tool, shape, first_ns, last_ns, calls, invalid FROM tool_shapes WHERE last_ns >= ? AND invalid > 0${toolFilter} LIMIT 500`,
      )
      .safeIntegers(true)
      .all(splitNs, ...toolArg) as ToolShapeRow[]
  ).map(
    (r): ShapeRow => ({
      tool: r.tool,
      shape: r.shape,
      firstNs: r.first_ns,
      lastNs: r.last_ns,
      calls: Number(r.calls),
      invalid: Number(r.invalid),
    }),
  );
  const paths = db
    .prepare(
      `SELECT tool, code, path, SUM(count) AS count, MAX(last_trace_id) AS traceId,
              MIN(minute) AS firstMinute, MAX(minute) AS lastMinute FROM tool_paths
        WHERE minute >= ? AND minute <= ?${toolFilter} GROUP BY tool, code, path`,
    )
    .all(splitNs / NS_PER_MINUTE, untilNs / NS_PER_MINUTE, ...toolArg) as PathRow[];
  const drift = detectDrift(
    {
      splitNs,
      schemas,
      baseline: splitNs > sinceNs ? reader.tools(sinceNs, splitNs, filter.tool) : [],
      current: reader.tools(splitNs, untilNs, filter.tool),
      shapes,
      paths,
      failingTraces: (tool, code) =>
        Number(
          db
            .prepare(
              'SELECT COUNT(DISTINCT trace_seq) FROM (SELECT trace_seq FROM tool_calls WHERE tool = ? AND start_ns >= ? AND start_ns < ? AND code = ? AND kind != 3 LIMIT 10000)',
            )
            .pluck()
            .get(tool, splitNs, untilNs, code),
        ),
    },
    thresholds,
  );
  const all = [...stored, ...drift];
  return filter.kind ? all.filter((f) => f.kind === filter.kind) : all;
}
