// The result flags at read time (detectors/result-flags.ts): sizes from the rollups; the calls that crossed
// the budget and the times of a grown version read only for the tools flagged.

import type { Flag } from '../detectors/flag.js';
import {
  type Crossings,
  type GrowthSeen,
  oversizedResultFlag,
  oversizedTools,
  resultGrowthFlag,
  resultGrowths,
} from '../detectors/result-flags.js';
import type { ResultCrossings, SpanReader, VersionCalls } from '../storage/contract.js';

const ms = (ns: bigint) => Number(ns / 1_000_000n);

/** Crossing calls as the oversized_result flag reads them (milliseconds). */
export const crossingsOf = (c: ResultCrossings): Crossings => ({
  calls: c.calls.map((x) => ({
    traceId: x.traceId,
    spanId: x.spanId,
    version: x.version,
    tokens: x.tokens,
    atMs: ms(x.startNs),
  })),
  firstMs: ms(c.firstNs),
  count: c.count,
});

/** When a grown version was called in the window; the window's ends where it had no call. */
export function growthSeenOf(v: VersionCalls, sinceNs: bigint, untilNs: bigint): GrowthSeen {
  return {
    firstMs: ms(v.firstNs ?? sinceNs),
    lastMs: ms(v.newest?.startNs ?? untilNs),
    ...(v.newest ? { traceId: v.newest.traceId, spanId: v.newest.spanId } : {}),
  };
}

/** oversized_result and result_growth of the window. */
export async function readResultFlags(
  reader: SpanReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool: string | undefined,
  budget: number,
): Promise<Flag[]> {
  const tools = await reader.resultSizes(sinceNs, untilNs, tool);
  const oversized = oversizedTools(tools, budget);
  const growths = resultGrowths(tools);
  const [crossed, seen] = await Promise.all([
    Promise.all(oversized.map((t) => reader.resultCrossings(t.name, sinceNs, untilNs, budget))),
    Promise.all(growths.map((g) => reader.versionCalls(g.tool, g.after.version, sinceNs, untilNs))),
  ]);
  const flags: Flag[] = [];
  oversized.forEach((t, i) => {
    const c = crossed[i];
    if (c) flags.push(oversizedResultFlag(t, budget, crossingsOf(c)));
  });
  growths.forEach((g, i) => {
    const v = seen[i];
    if (v) flags.push(resultGrowthFlag(g, growthSeenOf(v, sinceNs, untilNs)));
  });
  return flags;
}
