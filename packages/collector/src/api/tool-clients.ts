// The tool page's breakdown by MCP client (GET /api/tools/:name `clients`): per client name and version, its
// calls, failures, error rate and most frequent failing code, most calls first. A store's client names come from
// agents (any string a span carried), so the list is cut to the busiest few.
import type { ClientCalls } from '../storage/contract.js';
import type { ToolClient } from './schemas.js';
import { errorRateOf } from './tool-stats.js';

/** The most clients a tool page lists; the rest are left out (their calls are still in the tool's stats). */
export const TOOL_PAGE_CLIENTS = 100;

/** The code with the most calls; ties to the first in code order; null when none failed. */
function topCodeOf(codes: Record<string, number>): string | null {
  let top: string | null = null;
  let most = 0;
  for (const [code, n] of Object.entries(codes)) {
    if (code === '' || n <= 0) continue;
    if (n > most || (n === most && top !== null && code < top)) {
      top = code;
      most = n;
    }
  }
  return top;
}

/** Null (no client named) after every name; versions likewise. */
const byText = (x: string | null, y: string | null) =>
  x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;

/** The breakdown of a tool's calls by client (pure). */
export function toolClientsOut(rows: readonly ClientCalls[]): ToolClient[] {
  return rows
    .filter((r) => r.calls > 0)
    .sort((x, y) => y.calls - x.calls || byText(x.name, y.name) || byText(x.version, y.version))
    .slice(0, TOOL_PAGE_CLIENTS)
    .map((r) => ({
      name: r.name,
      version: r.version,
      calls: r.calls,
      errors: r.errors,
      errorRate: errorRateOf(r.errors, r.calls),
      topCode: topCodeOf(r.codes),
    }));
}
