// The result flags at read time (detectors/result-flags.ts): sizes from the rollups; the calls that crossed
// the budget and the times of a grown version read only for the tools flagged.

import type { Flag } from '../detectors/flag.js';
import {
  type Crossing,
  type Crossings,
  type GrowthSeen,
  oversizedResultFlag,
  oversizedTools,
  resultGrowthFlag,
  resultGrowths,
  type SeenCall,
} from '../detectors/result-flags.js';
import type {
  CallRef,
  ResultCrossing,
  ResultCrossings,
  SpanReader,
  VersionCalls,
} from '../storage/contract.js';

const ms = (ns: bigint) => Number(ns / 1_000_000n);

/** A crossing call as the oversized_result flag reads it (milliseconds). */
const crossingOf = (x: ResultCrossing): Crossing => ({
  traceId: x.traceId,
  spanId: x.spanId,
  version: x.version,
  tokens: x.tokens,
  atMs: ms(x.startNs),
});

/** Crossing calls as the oversized_result flag reads them (milliseconds). */
export const crossingsOf = (c: ResultCrossings): Crossings => ({
  calls: c.calls.map(crossingOf),
  first: crossingOf(c.first),
  count: c.count,
});

const seenOf = (c: CallRef): SeenCall => ({
  traceId: c.traceId,
  spanId: c.spanId,
  atMs: ms(c.startNs),
});

/** The first and newest call of a grown version in the window; null when it had none (no call to date it). */
export function growthSeenOf(v: VersionCalls): GrowthSeen | null {
  return v.first && v.newest ? { first: seenOf(v.first), newest: seenOf(v.newest) } : null;
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
    const v = seen[i] && growthSeenOf(seen[i]);
    if (v) flags.push(resultGrowthFlag(g, v));
  });
  return flags;
}
