// The recovery answers assembled from a tally (detection/read-recovery.ts): one tool's, with its codes and
// messages, and every tool's over the range (the overview and `report` read that one).
import type { RecoveryTally } from '../detection/read-recovery.js';
import type { RecoveryRow } from '../detectors/recovery-tally.js';
import type { RecoveryResponse, ToolRecoveryResponse } from './recovery-schemas.js';

type Range = { sinceNs: bigint; untilNs: bigint };

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

/** A row with nothing in it: a tool without failures in the range. */
const EMPTY: RecoveryRow = {
  failures: 0,
  outcomes: { repaired: 0, failed_again: 0, repeated: 0, switched: 0, gave_up: 0 },
  unknownInput: 0,
  recovered: 0,
  repairRate: null,
  recoveredRate: null,
};

function windowOf(tally: RecoveryTally, range: Range) {
  return {
    since: iso(range.sinceNs),
    until: iso(range.untilNs),
    failuresInRange: tally.failuresInRange,
    limited: tally.failuresInRange > tally.total.failures,
  };
}

export function toolRecoveryOf(
  name: string,
  tally: RecoveryTally,
  range: Range,
): ToolRecoveryResponse {
  const tool = tally.tools.find((t) => t.tool === name);
  return {
    ...windowOf(tally, range),
    ...(tool ?? { ...EMPTY, tool: name, byCode: [], byMessage: [] }),
  };
}

export function recoveryOverviewOf(tally: RecoveryTally, range: Range): RecoveryResponse {
  return {
    ...windowOf(tally, range),
    ...tally.total,
    tools: tally.tools.map(({ byMessage: _m, ...t }) => t),
  };
}
