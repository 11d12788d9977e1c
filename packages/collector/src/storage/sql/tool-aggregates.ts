// Per-tool aggregates over a window from the rollups (tool-stats.ts): calls per code, result sizes per version,
// and one tool's statistics with its latency and result-size distributions.

import { emptySizes, mergeSizes, resultSizesOf } from '../../aggregation/result-sizes.js';
import type { BucketCount, ToolCallCounts, ToolResultSizes, ToolStats } from '../read-records.js';
import { readContractSummaries } from './contract-reader.js';
import type { ReadDb } from './db.js';
import { exceptionTypes } from './exception-reader.js';
import { aggregateTools, emptyToolAgg, sourcesOf, statsOf } from './tool-stats.js';

/** Calls per tool and code over the window. */
export async function toolCounts(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<ToolCallCounts[]> {
  // Counts per code only: the aggregates without result sizes, sources or contracts.
  return [...(await aggregateTools(db, sinceNs, untilNs, tool, 'any', false)).entries()].map(
    ([name, a]) => ({ name, calls: a.calls, codes: Object.fromEntries(a.codes) }),
  );
}

/** Result-size percentiles per tool over the window, overall and per version. */
export async function resultSizes(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<ToolResultSizes[]> {
  return [...(await aggregateTools(db, sinceNs, untilNs, tool)).entries()].map(([name, a]) => {
    const { resultTokensP95, resultBytesP95, resultSizes } = resultSizesOf(a.sizes);
    return { name, resultTokensP95, resultBytesP95, resultSizes };
  });
}

const inOrder = (h: Map<number, number>): BucketCount[] =>
  [...h.entries()].sort(([x], [y]) => x - y).map(([bucket, count]) => ({ bucket, count }));

/** One tool's summary and distributions over the window (zero calls when none fell in it). */
export async function toolStats(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<ToolStats> {
  const a = (await aggregateTools(db, sinceNs, untilNs, tool)).get(tool) ?? emptyToolAgg();
  const allVersions = emptySizes();
  for (const v of a.sizes.values()) mergeSizes(allVersions, v);
  return {
    summary: statsOf(
      tool,
      a,
      (await sourcesOf(db, sinceNs, untilNs, 'any', tool)).get(tool) ?? [],
      (await readContractSummaries(db, tool))[0],
      (await exceptionTypes(db, sinceNs, untilNs, tool)).get(tool),
    ),
    latency: inOrder(a.hist),
    resultBytes: inOrder(allVersions.bytes),
  };
}
