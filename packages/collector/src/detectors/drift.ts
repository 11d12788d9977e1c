// Schema-drift detectors (docs/detectors.md), per tool over a window: computed at query time from small per-tool
// tables (schema hashes, input shapes, failing paths) and the rollups; input and output drift then read the
// failing calls of the few tools whose rates already make drift, to count the agents behind them and link them.
import { agentsOf, type FailingCalls, linkedCalls, seenOf } from './drift-calls.js';
import type { Flag } from './flag.js';

/** What drift needs of a tool's statistics over part of the window. */
export type ToolCounts = { name: string; calls: number; codes: Record<string, number> };

export type SchemaRow = {
  tool: string;
  version: string;
  hash: string;
  firstNs: bigint;
  lastNs: bigint;
  calls: number;
  traceId: string;
};
export type ShapeRow = {
  tool: string;
  shape: string;
  firstNs: bigint;
  lastNs: bigint;
  calls: number;
  invalid: number;
};
export type PathRow = {
  tool: string;
  code: string;
  path: string;
  count: number;
  traceId: string;
};

export type DriftThresholds = {
  /** Versions overlapping in time by less than this are a rollout, not skew. */
  rolloutGraceNs: bigint;
  /** Fewest INVALID_INPUT / INVALID_OUTPUT calls in the recent part before drift is considered. */
  minFailures: number;
  /**
   * Fewest agents those failures come from (drift-calls.ts agentsOf: conversations, traces, and one input sent
   * outside any conversation): one agent repeating itself is a loop, not drift.
   */
  minTraces: number;
  /** heavy_schema above this many tokens per tools/list entry (contract-flags.ts says why 1000). */
  schemaTokenBudget: number;
  /** oversized_result when a tool's p95 result is above this many tokens (result-flags.ts says why 10,000). */
  resultTokenBudget: number;
};
export const DEFAULT_DRIFT_THRESHOLDS: DriftThresholds = {
  rolloutGraceNs: 5n * 60_000_000_000n,
  minFailures: 3,
  minTraces: 3,
  schemaTokenBudget: 1000,
  resultTokenBudget: 10_000,
};

export type DriftInput = {
  /** Start of the recent part of the window: before it is the baseline. */
  splitNs: bigint;
  schemas: SchemaRow[];
  baseline: ToolCounts[];
  current: ToolCounts[];
  shapes: ShapeRow[];
  paths: PathRow[];
  /** The calls of `tool` failing with `code` in the recent part (asked for driftCandidates only). */
  failing: (tool: string, code: string) => FailingCalls | undefined;
};

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
function minNs(xs: bigint[]): bigint {
  let m = xs[0] ?? 0n;
  for (const x of xs) if (x < m) m = x;
  return m;
}
function maxNs(xs: bigint[]): bigint {
  let m = xs[0] ?? 0n;
  for (const x of xs) if (x > m) m = x;
  return m;
}
const top = <T>(xs: T[], n: number) => xs.slice(0, n);

const DRIFT_CODES = [
  ['INVALID_INPUT', 'input_drift'],
  ['INVALID_OUTPUT', 'output_drift'],
] as const;

/**
 * The share of a tool's recent calls failing with `code` when it has risen enough against the baseline to
 * be drift (before counting the distinct traces it comes from), else null.
 */
export function risingFailures(
  cur: ToolCounts,
  base: ToolCounts | undefined,
  code: (typeof DRIFT_CODES)[number][0],
  t: DriftThresholds = DEFAULT_DRIFT_THRESHOLDS,
): { failing: number; share: number; baseShare: number } | null {
  const failing = cur.codes[code] ?? 0;
  const share = cur.calls === 0 ? 0 : failing / cur.calls;
  const baseShare = base && base.calls > 0 ? (base.codes[code] ?? 0) / base.calls : 0;
  const input = code === 'INVALID_INPUT';
  const rising = share >= 2 * baseShare + (input ? 0.05 : 0.02);
  if (failing < t.minFailures || !rising || (input && share < 0.2)) return null;
  return { failing, share, baseShare };
}

/** The (tool, code) pairs whose distinct failing traces detectDrift will ask for. */
export function driftCandidates(
  current: ToolCounts[],
  baseline: ToolCounts[],
  t: DriftThresholds = DEFAULT_DRIFT_THRESHOLDS,
): { tool: string; code: string }[] {
  const base = new Map(baseline.map((s) => [s.name, s]));
  return current.flatMap((cur) =>
    DRIFT_CODES.filter(([code]) => risingFailures(cur, base.get(cur.name), code, t)).map(
      ([code]) => ({ tool: cur.name, code }),
    ),
  );
}

export function detectDrift(
  input: DriftInput,
  t: DriftThresholds = DEFAULT_DRIFT_THRESHOLDS,
): Flag[] {
  const flags: Flag[] = [];
  const byTool = new Map<string, SchemaRow[]>();
  for (const s of input.schemas) byTool.set(s.tool, [...(byTool.get(s.tool) ?? []), s]);

  for (const [tool, rows] of byTool) {
    // One version served with several contracts: the contract changed without a version bump.
    const byVersion = new Map<string, SchemaRow[]>();
    for (const r of rows) byVersion.set(r.version, [...(byVersion.get(r.version) ?? []), r]);
    for (const [version, hashes] of byVersion) {
      if (hashes.length < 2) continue;
      hashes.sort((a, b) => (a.firstNs < b.firstNs ? -1 : 1));
      flags.push({
        kind: 'silent_schema_change',
        severity: 'error',
        tool,
        version,
        count: hashes.reduce((n, h) => n + h.calls, 0),
        firstSeen: iso(minNs(hashes.map((h) => h.firstNs))),
        lastSeen: iso(maxNs(hashes.map((h) => h.lastNs))),
        summary: `${tool} version ${version} was served with ${hashes.length} different contracts (${hashes.map((h) => h.hash).join(', ')}) without a version bump.`,
        evidence: {
          schemaHashes: hashes.map((h) => h.hash),
          traceIds: [...new Set(hashes.map((h) => h.traceId))],
        },
      });
    }
    // Versions live at the same time beyond a rollout's grace period.
    const versions = [...byVersion.entries()]
      .map(([version, hs]) => ({
        version,
        first: minNs(hs.map((h) => h.firstNs)),
        last: maxNs(hs.map((h) => h.lastNs)),
        calls: hs.reduce((n, h) => n + h.calls, 0),
        hashes: hs.map((h) => h.hash),
        traceIds: hs.map((h) => h.traceId),
      }))
      .sort((a, b) => (a.first < b.first ? -1 : 1));
    const overlapping = versions.filter((v, i) =>
      versions.some(
        (w, j) =>
          j !== i && w.first < v.last - t.rolloutGraceNs && v.first < w.last - t.rolloutGraceNs,
      ),
    );
    if (overlapping.length > 1) {
      flags.push({
        kind: 'version_skew',
        severity: 'warning',
        tool,
        count: overlapping.reduce((n, v) => n + v.calls, 0),
        firstSeen: iso(minNs(overlapping.map((v) => v.first))),
        lastSeen: iso(maxNs(overlapping.map((v) => v.last))),
        summary: `${overlapping.length} versions of ${tool} are live at the same time (${overlapping.map((v) => `${v.version}: ${v.calls} calls`).join(', ')}).`,
        evidence: {
          versions: overlapping.map((v) => v.version),
          schemaHashes: overlapping.flatMap((v) => v.hashes),
          traceIds: [...new Set(overlapping.flatMap((v) => v.traceIds))],
        },
      });
    }
  }

  const baseline = new Map(input.baseline.map((s) => [s.name, s]));
  for (const cur of input.current) {
    for (const [code, kind] of DRIFT_CODES) {
      const rise = risingFailures(cur, baseline.get(cur.name), code, t);
      if (!rise) continue;
      const failing = input.failing(cur.name, code);
      if (!failing) continue;
      const agents = agentsOf(failing.first ? [failing.first, ...failing.newest] : failing.newest);
      if (agents < t.minTraces) continue;
      // Dated from the calls it links, so its times are those of its evidence, to the millisecond.
      const linked = linkedCalls(failing);
      const seen = seenOf(linked);
      if (!seen) continue;
      const paths = input.paths
        .filter((p) => p.tool === cur.name && p.code === code)
        .sort((a, b) => b.count - a.count);
      const shapes =
        kind === 'input_drift'
          ? input.shapes
              .filter((s) => s.tool === cur.name && s.invalid > 0 && s.lastNs >= input.splitNs)
              .sort((a, b) => b.invalid - a.invalid)
          : [];
      const conversations = [
        ...new Set(linked.flatMap((c) => (c.conversationId === null ? [] : [c.conversationId]))),
      ];
      const where = paths[0] ? `, most at ${paths[0].path}` : '';
      flags.push({
        kind,
        severity: 'error',
        tool: cur.name,
        count: rise.failing,
        firstSeen: iso(seen.firstNs),
        lastSeen: iso(seen.lastNs),
        summary:
          kind === 'input_drift'
            ? `${cur.name}: ${pct(rise.share)} of recent calls fail INVALID_INPUT (baseline ${pct(rise.baseShare)}), from ${agents} agents${where}${inputReason(cur.name, shapes, input)}.`
            : `${cur.name}: ${rise.failing} recent results broke the output contract (INVALID_OUTPUT ${pct(rise.share)}, baseline ${pct(rise.baseShare)}), for ${agents} agents${where}; the upstream changed.`,
        evidence: {
          paths: top(
            paths.map((p) => p.path),
            5,
          ),
          traceIds: linked.map((c) => c.traceId),
          spanIds: linked.map((c) => c.spanId),
          ...(conversations.length ? { conversations } : {}),
          ...(shapes.length
            ? {
                shapes: top(
                  shapes.map((s) => s.shape),
                  5,
                ),
              }
            : {}),
        },
      });
    }
  }
  return flags;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/**
 * What the refused inputs say, only as far as the facts go: a refused input shape that was in use and accepted
 * before the recent part is an old shape (after a contract change in the window, clients still sending it).
 */
function inputReason(tool: string, shapes: ShapeRow[], input: DriftInput): string {
  // Seen before the recent part, and accepted at some time (not every call of it refused).
  const old = shapes.find((s) => s.firstNs < input.splitNs && s.calls > s.invalid);
  const hashes = new Set(input.schemas.filter((s) => s.tool === tool).map((s) => s.hash));
  if (old && hashes.size > 1)
    return `; the contract changed and clients still send an old input shape (${old.shape})`;
  if (old) return `; clients send an input shape accepted before (${old.shape})`;
  const fresh = shapes.find((s) => s.firstNs >= input.splitNs);
  return fresh ? `; clients send input shapes not seen before (${fresh.shape})` : '';
}
