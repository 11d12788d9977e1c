// Drift at read time (detectors/drift.ts) from the reader's neutral answers: the window split into a baseline
// and a recent part, the per-tool tables and counts of each, and distinct failing traces asked only where the
// rates already make drift (one agent repeating itself is a loop, not drift).

import {
  type DriftThresholds,
  detectDrift,
  driftCandidates,
  type PathRow,
  type SchemaRow,
} from '../detectors/drift.js';
import type { Flag } from '../detectors/flag.js';
import type { FailingPath, SchemaVersion, SpanReader } from '../storage/contract.js';

const NS_PER_MINUTE = 60_000_000_000n;

/** Where the recent part of a window starts: its last quarter, at least a minute, never before the window. */
export function splitOf(sinceNs: bigint, untilNs: bigint): bigint {
  const window = untilNs - sinceNs;
  const recent = window / 4n > NS_PER_MINUTE ? window / 4n : NS_PER_MINUTE;
  return untilNs - recent > sinceNs ? untilNs - recent : sinceNs;
}

/** A schema version as the drift detector reads it. */
export const schemaRowOf = (v: SchemaVersion): SchemaRow => ({
  tool: v.tool,
  version: v.version,
  hash: v.schemaHash,
  firstNs: v.firstNs,
  lastNs: v.lastNs,
  calls: v.calls,
  traceId: v.lastTraceId,
});

/** A failing path as the drift detector reads it. */
export const pathRowOf = (p: FailingPath): PathRow => ({
  tool: p.tool,
  code: p.code,
  path: p.path,
  count: p.count,
  traceId: p.lastTraceId,
  firstMinute: p.firstMinute,
  lastMinute: p.lastMinute,
});

/** The drift flags of a window, with the schema rows they were read from (the contract flags use them too). */
export async function readDrift(
  reader: SpanReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool: string | undefined,
  thresholds: DriftThresholds,
): Promise<{ flags: Flag[]; schemas: SchemaRow[] }> {
  const splitNs = splitOf(sinceNs, untilNs);
  // Independent questions, asked together: PostgreSQL answers them on separate connections.
  const [versions, shapes, paths, baseline, current] = await Promise.all([
    reader.schemaVersions(sinceNs, untilNs, tool),
    reader.invalidShapes(splitNs, tool),
    reader.failingPaths(splitNs, untilNs, tool),
    splitNs > sinceNs ? reader.toolCounts(sinceNs, splitNs, tool) : Promise.resolve([]),
    reader.toolCounts(splitNs, untilNs, tool),
  ]);
  const candidates = driftCandidates(current, baseline, thresholds);
  const traces = await Promise.all(
    candidates.map((c) => reader.failingTraces(c.tool, c.code, splitNs, untilNs)),
  );
  const failing = new Map(candidates.map((c, i) => [`${c.tool}\u0000${c.code}`, traces[i] ?? 0]));
  const schemas = versions.map(schemaRowOf);
  const flags = detectDrift(
    {
      splitNs,
      schemas,
      baseline,
      current,
      shapes,
      paths: paths.map(pathRowOf),
      failingTraces: (t, code) => failing.get(`${t}\u0000${code}`) ?? 0,
    },
    thresholds,
  );
  return { flags, schemas };
}
