// Which rows a statistic counts, in SQL and in rollups (calls/sides.ts defines the sides). A client row is
// `paired` once the server's row of the same call is known (calls/pairing.ts); `any` counts every server row
// and the client rows not paired, so an agent instrumented only on its own side gets statistics, and a call
// traced on both sides counts once. Rollups keep three sides: server, client, and `paired` (client calls that
// also have a server row), so any = server + client − paired, read without touching raw rows.
import type { CallSide } from '../calls/sides.js';

export type RollupSide = 'server' | 'client' | 'paired';

/** SQL condition over tool_calls: the rows `side` counts. */
export function sideWhere(side: CallSide): string {
  if (side === 'server') return 'kind != 3';
  if (side === 'client') return 'kind = 3';
  return '(kind != 3 OR paired = 0)';
}

/** Rollup sides added, and subtracted, for the statistics of `side`. */
export function rollupSides(side: CallSide): { add: RollupSide[]; subtract: RollupSide[] } {
  if (side === 'server') return { add: ['server'], subtract: [] };
  if (side === 'client') return { add: ['client'], subtract: [] };
  return { add: ['server', 'client'], subtract: ['paired'] };
}
