// GET /api/flags data: stored retry-loop flags of the window, plus drift flags computed from the per-tool
// detector tables and the rollups. Each query is indexed or bounded by the number of tools.

import {
  DEFAULT_DRIFT_THRESHOLDS,
  type DriftThresholds,
  detectDrift,
  driftCandidates,
  type PathRow,
  type SchemaRow,
  type ShapeRow,
  type ToolCounts,
} from '../../detectors/drift.js';
import type { Flag } from '../../detectors/flag.js';
import { RESULT_FLAG_KINDS } from '../../detectors/result-flags.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import type { FlagFilter } from '../contract.js';
import { resultSizesOf } from '../result-sizes.js';
import { CODE_KEY_SQL } from './code-sql.js';
import { readContractFlags } from './contract-flag-reader.js';
import { big, isoOf as iso, NS_PER_MINUTE, num, type ReadDb, type Row, text } from './db.js';
import { readResultFlags } from './result-flag-reader.js';
import { aggregateTools } from './tool-stats.js';

function storedFlag(r: Row): Flag {
  let evidence: Flag['evidence'] = {};
  try {
    evidence = JSON.parse(text(r.evidence)) as Flag['evidence'];
  } catch {
    evidence = {};
  }
  const flag: Flag = {
    kind: text(r.kind) as Flag['kind'],
    severity: r.severity === 'error' ? 'error' : 'warning',
    tool: text(r.tool),
    count: num(r.count),
    firstSeen: iso(big(r.first_ns)),
    lastSeen: iso(big(r.last_ns)),
    summary: text(r.summary),
    evidence,
  };
  if (r.trace_id) flag.traceId = text(r.trace_id);
  if (r.conversation_id) flag.conversationId = text(r.conversation_id);
  return flag;
}

export async function readFlags(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  filter: FlagFilter,
  thresholds: DriftThresholds = DEFAULT_DRIFT_THRESHOLDS,
): Promise<Flag[]> {
  const toolFilter = filter.tool ? ' AND tool = ?' : '';
  const toolArg = filter.tool ? [filter.tool] : [];
  const stored = (
    await db.all(
      `SELECT kind, severity, tool, trace_id, conversation_id, count, first_ns, last_ns, summary, evidence
         FROM flags WHERE last_ns >= ? AND first_ns < ?${toolFilter} ORDER BY last_ns DESC LIMIT 1000`,
      [sinceNs, untilNs, ...toolArg],
    )
  ).map(storedFlag);

  const window = untilNs - sinceNs;
  const recent = window / 4n > NS_PER_MINUTE ? window / 4n : NS_PER_MINUTE;
  const splitNs = untilNs - recent > sinceNs ? untilNs - recent : sinceNs;
  const schemas = (
    await db.all(
      `SELECT tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id FROM tool_schemas
        WHERE last_ns >= ? AND first_ns < ?${toolFilter}`,
      [sinceNs, untilNs, ...toolArg],
    )
  ).map(
    (r): SchemaRow => ({
      tool: text(r.tool),
      version: text(r.version),
      hash: text(r.schema_hash),
      firstNs: big(r.first_ns),
      lastNs: big(r.last_ns),
      calls: num(r.calls),
      traceId: text(r.last_trace_id),
    }),
  );
  const shapes = (
    await db.all(
      `SELECT tool, shape, first_ns, last_ns, calls, invalid FROM tool_shapes
        WHERE last_ns >= ? AND invalid > 0${toolFilter} LIMIT 500`,
      [splitNs, ...toolArg],
    )
  ).map(
    (r): ShapeRow => ({
      tool: text(r.tool),
      shape: text(r.shape),
      firstNs: big(r.first_ns),
      lastNs: big(r.last_ns),
      calls: num(r.calls),
      invalid: num(r.invalid),
    }),
  );
  const paths = (
    await db.all(
      `SELECT tool, code, path, SUM(count) AS count, MAX(last_trace_id) AS trace_id,
              MIN(minute) AS first_minute, MAX(minute) AS last_minute FROM tool_paths
        WHERE minute >= ? AND minute <= ?${toolFilter} GROUP BY tool, code, path`,
      [splitNs / NS_PER_MINUTE, untilNs / NS_PER_MINUTE, ...toolArg],
    )
  ).map(
    (r): PathRow => ({
      tool: text(r.tool),
      code: text(r.code),
      path: text(r.path),
      count: num(r.count),
      traceId: text(r.trace_id),
      firstMinute: num(r.first_minute),
      lastMinute: num(r.last_minute),
    }),
  );
  // Drift reads calls per code only: the aggregates without result sizes, sources or contracts.
  const counts = async (from: bigint, to: bigint): Promise<ToolCounts[]> =>
    [...(await aggregateTools(db, from, to, filter.tool, 'any', false)).entries()].map(
      ([name, a]) => ({ name, calls: a.calls, codes: Object.fromEntries(a.codes) }),
    );
  const baseline = splitNs > sinceNs ? await counts(sinceNs, splitNs) : [];
  const current = await counts(splitNs, untilNs);
  // Distinct failing traces, only where the rates already make drift (one agent repeating itself is a loop).
  const failing = new Map<string, number>();
  for (const { tool, code } of driftCandidates(current, baseline, thresholds)) {
    const rows = await db.all(
      `SELECT COUNT(DISTINCT trace_seq) AS n FROM (SELECT trace_seq FROM tool_calls
         WHERE ${TOOL_IS} AND start_ns >= ? AND start_ns < ? AND ${CODE_KEY_SQL} = ? AND ${sideWhere('any')} LIMIT 10000) AS recent`,
      [tool, splitNs, untilNs, code],
    );
    failing.set(`${tool}\u0000${code}`, num(rows[0]?.n));
  }
  const drift = detectDrift(
    {
      splitNs,
      schemas,
      baseline,
      current,
      shapes,
      paths,
      failingTraces: (tool, code) => failing.get(`${tool}\u0000${code}`) ?? 0,
    },
    thresholds,
  );
  const contractFlags = await readContractFlags(
    db,
    sinceNs,
    untilNs,
    filter.tool,
    thresholds.schemaTokenBudget,
    drift,
    schemas,
  );
  const wanted = (kinds: readonly string[]) => !filter.kind || kinds.includes(filter.kind);
  const resultFlags = wanted(RESULT_FLAG_KINDS)
    ? await readResultFlags(
        db,
        sinceNs,
        untilNs,
        [...(await aggregateTools(db, sinceNs, untilNs, filter.tool)).entries()].map(
          ([name, a]) => ({ name, ...resultSizesOf(a.sizes) }),
        ),
        thresholds.resultTokenBudget,
      )
    : [];
  const all = [...stored, ...contractFlags, ...resultFlags];
  return filter.kind ? all.filter((f) => f.kind === filter.kind) : all;
}
