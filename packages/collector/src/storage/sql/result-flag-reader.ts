// The result flags of a window (detectors/result-flags.ts): sizes come from the tools' rollups; the calls that
// crossed the budget and the times of a grown version come from tool_calls, read only for the tools flagged
// (newest first through the (tool, start_ns) index: at a p95 over the budget, one call in twenty crosses, so
// the walk stops early).

import type { Flag } from '../../detectors/flag.js';
import {
  type Crossings,
  type GrowthSeen,
  oversizedResultFlag,
  oversizedTools,
  resultGrowthFlag,
  resultGrowths,
  type ToolResultSizes,
} from '../../detectors/result-flags.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import { big, num, type ReadDb, text, textOrNull } from './db.js';

const LISTED = 20;
const COUNT_CAP = 100_000;

const ms = (ns: bigint) => Number(ns / 1_000_000n);

async function crossingsOf(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
  budget: number,
): Promise<Crossings | null> {
  const where = `${TOOL_IS} AND start_ns >= ? AND start_ns < ? AND result_tokens > ? AND ${sideWhere('any')}`;
  const args = [tool, sinceNs, untilNs, budget];
  const newest = await db.all(
    `SELECT trace_id, span_id, version, result_tokens, start_ns FROM tool_calls WHERE ${where}
      ORDER BY start_ns DESC LIMIT ${LISTED}`,
    args,
  );
  if (newest.length === 0) return null;
  const first = await db.all(
    `SELECT start_ns FROM tool_calls WHERE ${where} ORDER BY start_ns LIMIT 1`,
    args,
  );
  const counted = await db.all(
    `SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM tool_calls WHERE ${where} LIMIT ${COUNT_CAP}) AS crossed`,
    args,
  );
  return {
    calls: newest.map((r) => ({
      traceId: text(r.trace_id),
      spanId: text(r.span_id),
      version: textOrNull(r.version),
      tokens: num(r.result_tokens),
      atMs: ms(big(r.start_ns)),
    })),
    firstMs: ms(big(first[0]?.start_ns ?? newest[0]?.start_ns)),
    count: num(counted[0]?.n),
  };
}

/**
 * First and last call of a tool's version in the window (to the nanosecond the rollups do not keep), and the
 * newest call's trace and span: the evidence an on-call engineer opens.
 */
async function versionTimes(
  db: ReadDb,
  tool: string,
  version: string | null,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<GrowthSeen> {
  const where = `${TOOL_IS} AND ${version === null ? 'version IS NULL' : 'version = ?'} AND start_ns >= ? AND start_ns < ?`;
  const args = version === null ? [tool, sinceNs, untilNs] : [tool, version, sinceNs, untilNs];
  const [first] = await db.all(
    `SELECT start_ns FROM tool_calls WHERE ${where} ORDER BY start_ns LIMIT 1`,
    args,
  );
  const [last] = await db.all(
    `SELECT start_ns, trace_id, span_id FROM tool_calls WHERE ${where} ORDER BY start_ns DESC LIMIT 1`,
    args,
  );
  return {
    firstMs: ms(big(first?.start_ns ?? sinceNs)),
    lastMs: ms(big(last?.start_ns ?? untilNs)),
    ...(last ? { traceId: text(last.trace_id), spanId: text(last.span_id) } : {}),
  };
}

export async function readResultFlags(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tools: ToolResultSizes[],
  budget: number,
): Promise<Flag[]> {
  const flags: Flag[] = [];
  for (const t of oversizedTools(tools, budget)) {
    const crossed = await crossingsOf(db, t.name, sinceNs, untilNs, budget);
    if (crossed) flags.push(oversizedResultFlag(t, budget, crossed));
  }
  for (const g of resultGrowths(tools)) {
    flags.push(
      resultGrowthFlag(g, await versionTimes(db, g.tool, g.after.version, sinceNs, untilNs)),
    );
  }
  return flags;
}
