// Which rows a statistic counts, in SQL and in rollups (calls/sides.ts defines the sides). A client row is
// `paired` once the server's row of the same call is known, and a proxy row once the server's row below it is
// (calls/pairing.ts); `any` counts the rows not paired, so an agent instrumented only on its own side gets
// statistics, and a call traced by agent, proxy and server counts once. Rollups keep four sides
// (aggregation/rollups.ts): any = server + client − paired − proxied − joined and server = server − proxied −
// joined, read without touching raw rows. A row that is a part of another row's logical call (`part` ≠ 0,
// storage/batch-rows.ts CALL_PART) counts on no side: its call counts once, from the row holding it.
import type { RollupSide } from '../aggregation/rollups.js';
import type { CallSide } from '../calls/sides.js';

/** SQL condition over tool_calls: the rows `side` counts. */
export function sideWhere(side: CallSide): string {
  if (side === 'server') return '(part = 0 AND kind != 3 AND (proxy = 0 OR paired = 0))';
  if (side === 'client') return '(part = 0 AND kind = 3)';
  return '(part = 0 AND (paired = 0 OR (kind != 3 AND proxy = 0)))';
}

/** Rollup sides added, and subtracted, for the statistics of `side`. */
export function rollupSides(side: CallSide): { add: RollupSide[]; subtract: RollupSide[] } {
  if (side === 'server') return { add: ['server'], subtract: ['proxied', 'joined'] };
  if (side === 'client') return { add: ['client'], subtract: [] };
  return { add: ['server', 'client'], subtract: ['paired', 'proxied', 'joined'] };
}
