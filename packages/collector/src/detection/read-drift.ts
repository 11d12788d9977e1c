// Drift at read time (detectors/drift.ts) from the reader's neutral answers: the window split into a baseline
// and a recent part, the per-tool tables and counts of each, and the failing calls asked only where the rates
// already make drift (how many agents they come from: one agent repeating itself is a loop, not drift), and the
// first and newest calls of the versions a schema flag names, which date it.

import {
  type DriftThresholds,
  detectDrift,
  driftCandidates,
  type PathRow,
  type SchemaRow,
} from '../detectors/drift.js';
import { datedFrom, type FailingCall, type FailingCalls } from '../detectors/drift-calls.js';
import type { Flag } from '../detectors/flag.js';
import type {
  FailingPath,
  FailingToolCall,
  FailingToolCalls,
  SchemaVersion,
  SpanReader,
} from '../storage/contract.js';

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
});

/** A failing call as the drift detector reads it. */
const failingCallOf = (c: FailingToolCall): FailingCall => ({
  traceId: c.traceId,
  spanId: c.spanId,
  conversationId: c.conversationId,
  inputHash: c.inputHash,
  startNs: c.startNs,
});

/** The failing calls of a tool and code as the drift detector reads them. */
export const failingCallsOf = (f: FailingToolCalls): FailingCalls => ({
  newest: f.newest.map(failingCallOf),
  first: f.first ? failingCallOf(f.first) : null,
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
  const calls = await Promise.all(
    candidates.map((c) => reader.failingCalls(c.tool, c.code, splitNs, untilNs)),
  );
  const failing = new Map(
    candidates.map((c, i) => [`${c.tool}\u0000${c.code}`, calls[i] && failingCallsOf(calls[i])]),
  );
  const schemas = versions.map(schemaRowOf);
  const found = detectDrift(
    {
      splitNs,
      schemas,
      baseline,
      current,
      shapes,
      paths: paths.map(pathRowOf),
      failing: (t, code) => failing.get(`${t}\u0000${code}`),
    },
    thresholds,
  );
  const flags = await Promise.all(found.map((f) => datedSchemaFlag(reader, f, sinceNs, untilNs)));
  return { flags, schemas };
}

/**
 * A schema flag (silent_schema_change, version_skew) dated from the first and newest call of the versions it
 * names in the window, which it then links; the per-tool table it was read from keeps each hash's times over
 * all time and only its newest trace. Other flags are already dated from their calls.
 */
async function datedSchemaFlag(
  reader: SpanReader,
  flag: Flag,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<Flag> {
  const versions =
    flag.kind === 'silent_schema_change' && flag.version !== undefined
      ? [flag.version]
      : flag.kind === 'version_skew'
        ? (flag.evidence.versions ?? [])
        : [];
  if (versions.length === 0) return flag;
  const seen = await Promise.all(
    versions.map((v) => reader.versionCalls(flag.tool, v, sinceNs, untilNs)),
  );
  return datedFrom(
    flag,
    seen.flatMap((v) => [v.first, v.newest].filter((c) => c !== null)),
  );
}
