// Flags on what tools return (a tool is paid for in the model's context):
//
// - oversized_result: a tool's p95 result, in approximate tokens, is over the budget. The default, 10,000
//   tokens, is where Claude Code starts warning about an MCP tool's output (its hard cap, MAX_MCP_OUTPUT_TOKENS,
//   defaults to 25,000): one result in twenty that large already takes 5 % of a 200k context per call, and
//   a client with a cap cuts or refuses the tail. The evidence lists the newest calls that crossed it.
// - result_growth: a version's p95 is at least twice the previous version's, so the upstream (or the tool)
//   started returning more. Both versions need MIN_MEASURED sized calls, and the p95 must grow by at least
//   MIN_GROWTH_TOKENS: 40 tokens becoming 90 doubles without costing anyone anything.
import { formatBytes, formatCount } from '../format.js';
import type { Flag } from './flag.js';

export const RESULT_FLAG_KINDS = ['oversized_result', 'result_growth'] as const;
export const DEFAULT_RESULT_TOKEN_BUDGET = 10_000;
export const MIN_MEASURED = 5;
export const MIN_GROWTH_TOKENS = 200;
export const GROWTH_FACTOR = 2;

/** One version's result sizes over the window (null: calls without a version); null percentiles: unmeasured. */
export type VersionResultSizes = {
  version: string | null;
  /** Calls whose span carried a result size. */
  measured: number;
  bytesP95: number | null;
  tokensP95: number | null;
};

/** What the flags read of one tool: its sizes over the window, overall and per version (oldest first). */
export type ToolResultSizes = {
  name: string;
  resultTokensP95: number | null;
  resultBytesP95: number | null;
  resultSizes: VersionResultSizes[];
};

/** A call whose result crossed the budget. */
export type Crossing = {
  traceId: string;
  spanId: string;
  version: string | null;
  tokens: number;
  atMs: number;
};

/** The calls of a tool over the budget, newest first, and the first one. */
export type Crossings = {
  calls: Crossing[];
  first: Crossing;
  /** Calls over the budget in the window (counted up to 100,000). */
  count: number;
};

const fmt = formatCount;
const iso = (ms: number) => new Date(ms).toISOString();

/** The tools whose p95 is over the budget: the ones whose crossing calls are worth reading. */
export function oversizedTools(tools: ToolResultSizes[], budget: number): ToolResultSizes[] {
  return tools.filter((t) => t.resultTokensP95 !== null && t.resultTokensP95 > budget);
}

export function oversizedResultFlag(t: ToolResultSizes, budget: number, c: Crossings): Flag {
  const p95 = t.resultTokensP95 ?? 0;
  const newest = c.calls[0];
  // The newest crossings and the first, which dates the flag (one call each, parallel lists).
  const linked = c.calls.some((x) => x.spanId === c.first.spanId) ? c.calls : [...c.calls, c.first];
  const versions = [...new Set(linked.map((x) => x.version).filter((v) => v !== null))];
  return {
    kind: 'oversized_result',
    severity: 'warning',
    tool: t.name,
    ...(newest?.version ? { version: newest.version } : {}),
    ...(newest ? { traceId: newest.traceId } : {}),
    count: c.count,
    firstSeen: iso(c.first.atMs),
    lastSeen: iso(newest?.atMs ?? c.first.atMs),
    summary: `${t.name} returns about ${fmt(p95)} tokens at p95 (${formatBytes(t.resultBytesP95)}), over the ${fmt(budget)}-token budget; ${fmt(c.count)} calls crossed it`,
    evidence: {
      traceIds: linked.map((x) => x.traceId),
      spanIds: linked.map((x) => x.spanId),
      resultTokens: linked.map((x) => x.tokens),
      resultTokensP95: p95,
      ...(t.resultBytesP95 !== null ? { resultBytesP95: t.resultBytesP95 } : {}),
      budget,
      ...(versions.length > 0 ? { versions } : {}),
    },
  };
}

export type Growth = { tool: string; before: VersionResultSizes; after: VersionResultSizes };

/** Each version whose p95 is at least twice its predecessor's, with that predecessor. */
export function resultGrowths(tools: ToolResultSizes[]): Growth[] {
  const out: Growth[] = [];
  for (const t of tools) {
    const versions = t.resultSizes.filter((v) => v.measured >= MIN_MEASURED);
    for (let i = 1; i < versions.length; i++) {
      const before = versions[i - 1];
      const after = versions[i];
      if (!before || !after || before.tokensP95 === null || after.tokensP95 === null) continue;
      const from = before.tokensP95;
      const to = after.tokensP95;
      if (to >= GROWTH_FACTOR * Math.max(from, 1) && to - from >= MIN_GROWTH_TOKENS)
        out.push({ tool: t.name, before, after });
    }
  }
  return out;
}

/** A call a flag links, and when it started. */
export type SeenCall = { traceId: string; spanId: string; atMs: number };

/** The first and the newest call of the grown version in the window. */
export type GrowthSeen = { first: SeenCall; newest: SeenCall };

/** The flag of a growth. */
export function resultGrowthFlag(g: Growth, seen: GrowthSeen): Flag {
  const { before, after } = g;
  const from = before.tokensP95 ?? 0;
  const to = after.tokensP95 ?? 0;
  const name = (v: VersionResultSizes) => v.version ?? '(unversioned)';
  const label = (v: VersionResultSizes) =>
    v.version === null ? '(unversioned)' : `version ${v.version}`;
  const ratio = Math.round((to / Math.max(from, 1)) * 10) / 10;
  return {
    kind: 'result_growth',
    severity: 'warning',
    tool: g.tool,
    ...(after.version !== null ? { version: after.version } : {}),
    traceId: seen.newest.traceId,
    count: after.measured,
    firstSeen: iso(seen.first.atMs),
    lastSeen: iso(seen.newest.atMs),
    summary: `${g.tool} ${label(after)} returns ${ratio}× what ${label(before)} did at p95: about ${fmt(to)} tokens, up from ${fmt(from)}`,
    evidence: {
      versions: [name(before), name(after)],
      ...linkedOf([seen.newest, seen.first]),
      resultTokensP95: to,
      previousTokensP95: from,
      ...(after.bytesP95 !== null ? { resultBytesP95: after.bytesP95 } : {}),
      ...(before.bytesP95 !== null ? { previousBytesP95: before.bytesP95 } : {}),
      ratio,
    },
  };
}

/** Evidence that links calls: their traces and spans, parallel, each call once. */
function linkedOf(calls: SeenCall[]): { traceIds: string[]; spanIds: string[] } {
  const once = calls.filter((c, i) => calls.findIndex((d) => d.spanId === c.spanId) === i);
  return { traceIds: once.map((c) => c.traceId), spanIds: once.map((c) => c.spanId) };
}
