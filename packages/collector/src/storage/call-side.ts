// Which side of a call a row records, and which rows a statistic counts (DESIGN: one call, counted once).
// A CLIENT span is the caller's view of a call; any other kind is the executor's (server) view. A client row
// is `paired` once the server's row of the same call is known: the server span is its child, or both carry
// the same call id in the same trace. `any` counts every server row and the client rows not paired, so an
// agent instrumented only on its own side gets statistics, and a call traced on both sides counts once.
// Rollups keep three sides: server, client, and `paired` (client calls that also have a server row), so
// any = server + client − paired, read without touching raw rows.

export const CALL_SIDES = ['any', 'server', 'client'] as const;
export type CallSide = (typeof CALL_SIDES)[number];

/** OTLP span kind CLIENT. */
export const KIND_CLIENT = 3;

export type RollupSide = 'server' | 'client' | 'paired';

export const sideOfKind = (kind: number): 'server' | 'client' =>
  kind === KIND_CLIENT ? 'client' : 'server';

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
