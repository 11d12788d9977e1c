// Whether an agent recovered from a failed tool call (docs/recovery.md): what it did next in the same scope (its
// conversation, or its trace when the call has no conversation id). A pure rule over a scope's ordered calls, as
// the loop detectors are: it imports nothing of storage or the API.
import type { RecoveryCall } from '../calls/recovery-call.js';

/** What followed a failed call. */
export const RECOVERY_OUTCOMES = [
  'repaired',
  'failed_again',
  'repeated',
  'switched',
  'gave_up',
] as const;
export type RecoveryOutcome = (typeof RECOVERY_OUTCOMES)[number];

/**
 * The same tool came next but either call's input was not fingerprinted (a foreign span without arguments):
 * whether the input changed is unknown, so the call is in none of the five outcomes.
 */
export const UNKNOWN_INPUT = 'unknown_input';

export type { RecoveryCall };

/**
 * Whether `b` belongs to the same logical call as `a`, and so is no "next call": two spans the agent made under
 * one call id of one tool are one call to it. This is the one place the rule lives: when a logical call's legs
 * (input rounds, task polls; issue 44) can show as spans of their own, the rule that they are not next calls is
 * added here.
 */
export function sameLogicalCall(a: RecoveryCall, b: RecoveryCall): boolean {
  return a.callId !== null && a.callId === b.callId && a.tool === b.tool;
}

/** The call the agent made after `calls[i]` (calls in start order), or undefined when it made none. */
export function nextCallAfter(calls: readonly RecoveryCall[], i: number): RecoveryCall | undefined {
  const failed = calls[i];
  if (!failed) return undefined;
  for (let j = i + 1; j < calls.length; j++) {
    const c = calls[j] as RecoveryCall;
    if (!sameLogicalCall(failed, c)) return c;
  }
  return undefined;
}

/**
 * What a failed call led to: `gave_up` (no further tool call), `switched` (another tool), `repeated` (the same
 * tool and input), `repaired` (the same tool, another input, success), `failed_again` (the same tool, another
 * input, failure).
 */
export function recoveryOf(
  failed: RecoveryCall,
  next: RecoveryCall | undefined,
): RecoveryOutcome | typeof UNKNOWN_INPUT {
  if (!next) return 'gave_up';
  if (next.tool !== failed.tool) return 'switched';
  if (failed.inputHash === null || next.inputHash === null) return UNKNOWN_INPUT;
  if (next.inputHash === failed.inputHash) return 'repeated';
  return next.code === null ? 'repaired' : 'failed_again';
}

/** A failed call, what followed it, and whether the agent recovered (its next call, same tool, succeeded). */
export type Recovery = {
  call: RecoveryCall;
  outcome: RecoveryOutcome | typeof UNKNOWN_INPUT;
  next: RecoveryCall | undefined;
  /** repaired, or a repeat that succeeded (a transient failure tried again). */
  recovered: boolean;
};

/** The failed calls of one scope's ordered calls that `counted` picks, each with what followed it. */
export function recoveriesOf(
  calls: readonly RecoveryCall[],
  counted: (call: RecoveryCall) => boolean,
): Recovery[] {
  const out: Recovery[] = [];
  calls.forEach((call, i) => {
    if (call.code === null || !counted(call)) return;
    const next = nextCallAfter(calls, i);
    out.push({
      call,
      outcome: recoveryOf(call, next),
      next,
      recovered: next !== undefined && next.tool === call.tool && next.code === null,
    });
  });
  return out;
}
