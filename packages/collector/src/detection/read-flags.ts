// Every flag of a window, as GET /api/flags, `report`, the webhook and /metrics list them: the stored loop
// flags, then drift with its contract changes, heavy_schema and deprecated_tool_in_use, then the result flags,
// each computed by the pure detectors from the reader's neutral answers.

import type { DriftThresholds } from '../detectors/drift.js';
import type { Flag } from '../detectors/flag.js';
import { flagIdOf } from '../detectors/flag-id.js';
import { RESULT_FLAG_KINDS } from '../detectors/result-flags.js';
import type { SpanReader, Storage, StoredFlag } from '../storage/contract.js';
import { readContractFlags } from './read-contract-flags.js';
import { readDrift } from './read-drift.js';
import { readResultFlags } from './read-result-flags.js';
import { thresholdsOf } from './read-thresholds.js';

/** Which flags: of one kind, of one tool. */
export type FlagFilter = { kind?: string | undefined; tool?: string | undefined };

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

/** A stored loop flag as the API shows it: absent fields left out, times as ISO strings. */
export function flagOfStored(s: StoredFlag): Flag {
  const flag: Flag = {
    // The writer stored what the loop detectors made, so kind and evidence have a flag's shape.
    kind: s.kind as Flag['kind'],
    severity: s.severity,
    tool: s.tool,
    count: s.count,
    firstSeen: iso(s.firstNs),
    lastSeen: iso(s.lastNs),
    summary: s.summary,
    evidence: s.evidence as Flag['evidence'],
  };
  if (s.traceId) flag.traceId = s.traceId;
  if (s.conversationId) flag.conversationId = s.conversationId;
  return flag;
}

/** The flags of [sinceNs, untilNs) that match `filter`, read with `thresholds`. */
export async function readFlags(
  reader: SpanReader,
  sinceNs: bigint,
  untilNs: bigint,
  filter: FlagFilter,
  thresholds: DriftThresholds,
): Promise<Flag[]> {
  const wanted = (kinds: readonly string[]) => !filter.kind || kinds.includes(filter.kind);
  // Independent questions, asked together: PostgreSQL answers them on separate connections, and the SQLite
  // reader thread has the next one at hand when it finishes one.
  const [stored, schemaFlags, resultFlags] = await Promise.all([
    reader.storedFlags(sinceNs, untilNs, filter.tool),
    Promise.all([
      reader.contractSummaries(filter.tool),
      readDrift(reader, sinceNs, untilNs, filter.tool, thresholds),
    ]).then(([summaries, drift]) =>
      readContractFlags(
        reader,
        sinceNs,
        untilNs,
        filter.tool,
        thresholds.schemaTokenBudget,
        summaries,
        drift,
      ),
    ),
    wanted(RESULT_FLAG_KINDS)
      ? readResultFlags(reader, sinceNs, untilNs, filter.tool, thresholds.resultTokenBudget)
      : Promise.resolve([]),
  ]);
  const all = [...stored.map(flagOfStored), ...schemaFlags, ...resultFlags];
  const kept = filter.kind ? all.filter((f) => f.kind === filter.kind) : all;
  return kept.map((f) => ({ id: flagIdOf(f), ...f }));
}

/** The flags of a store, read with the thresholds it was opened with (its read settings). */
export function flagsOf(
  storage: Storage,
  sinceNs: bigint,
  untilNs: bigint,
  filter: FlagFilter,
): Promise<Flag[]> {
  return readFlags(storage, sinceNs, untilNs, filter, thresholdsOf(storage));
}
