// Per-tool answers over a window from the rollups (tool-stats.ts) that detection reads at read time: calls per
// code, and result-size percentiles per version.

import { resultSizesOf } from '../../aggregation/result-sizes.js';
import type { ToolCallCounts, ToolResultSizes } from '../read-records.js';
import type { ReadDb } from './db.js';
import { aggregate, aggregateTools } from './tool-stats.js';

/** Calls per tool and code over the window. */
export async function toolCounts(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<ToolCallCounts[]> {
  // Counts per code only: the aggregates without latency, result sizes, sources or contracts.
  const counts = await aggregate(db, sinceNs, untilNs, {
    tool,
    side: 'any',
    sizes: false,
    latency: false,
    client: undefined,
    by: 'tool',
  });
  return [...counts.entries()].map(([name, a]) => ({
    name,
    calls: a.calls,
    codes: Object.fromEntries(a.codes),
  }));
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
