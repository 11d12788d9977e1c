// Recovery over a window (docs/recovery.md): the failures storage reads with their scopes, each classified by the
// pure rule (detectors/recovery.ts) and counted per tool, code and message (detectors/recovery-tally.ts).
import { type Recovery, type RecoveryCall, recoveriesOf } from '../detectors/recovery.js';
import {
  type Counted,
  type RecoveryRow,
  type ToolRecovery,
  tallyRecoveries,
} from '../detectors/recovery-tally.js';
import type { RecoveryReader } from '../storage/contract.js';

/** Most failures one read classifies (the newest): the answer says when the window held more. */
export const RECOVERY_FAILURES = 2000;

export type RecoveryTally = {
  /** Failures in the window; `total.failures` of them (the newest) were classified. */
  failuresInRange: number;
  total: RecoveryRow;
  tools: ToolRecovery[];
};

/** The recovery of the window's failures, of one tool or of all. */
export async function readRecovery(
  reader: RecoveryReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
): Promise<RecoveryTally> {
  const read = await reader.recoveryScopes(sinceNs, untilNs, tool, RECOVERY_FAILURES);
  const counted = new Set(read.counted);
  const recoveries: Recovery[] = read.scopes.flatMap((calls: RecoveryCall[]) =>
    recoveriesOf(calls, (c) => counted.has(c.spanId)),
  );
  const list: Counted[] = recoveries.map((recovery) => ({
    recovery,
    message: read.messages[recovery.call.spanId] ?? null,
  }));
  return { failuresInRange: read.failures, ...tallyRecoveries(list) };
}
