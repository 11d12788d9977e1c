// polling_no_progress: the agent calls one tool with one input again and again and gets the same answer every
// time: it re-reads an unchanged result. A pure function over one scope's calls; without result hashes it says
// nothing, since "the same result" is then unknown.
import { flagOf, groupBy, inputKey, keysOf, runsOf } from './flag-of.js';
import type { LoopDetector, LoopFlag, LoopScope, LoopThresholds, ScopeCall } from './scope.js';
import { computeWasted, wastedSummary } from './wasted.js';

/** Whether a call can be a poll that learned nothing: it succeeded and its result hash is known. */
const pollable = (c: ScopeCall): boolean => c.code === null && c.outputHash !== null;

/** The flag of one run of unchanged polls. */
function pollFlag(scope: LoopScope, run: readonly ScopeCall[]): LoopFlag {
  const first = run[0] as ScopeCall;
  const wasted = computeWasted(run, 1, scope.modelCalls);
  return flagOf(
    'polling_no_progress',
    'warning',
    run,
    `${first.tool} was called ${run.length} times in a row with the same input and returned the same result every time: the agent re-read an unchanged answer. Wasted: ${wastedSummary(wasted)}.`,
    { wasted },
  );
}

/**
 * The polling_no_progress flags of one scope's calls: per tool and input, each maximal run of calls that all
 * succeeded with one result. A failure or an unknown result ends a run; a new result is progress and starts
 * the next run.
 */
function detectPolling(scope: LoopScope, t: LoopThresholds): LoopFlag[] {
  const flags: LoopFlag[] = [];
  const byInput = groupBy(scope.calls, (c) =>
    c.inputHash === null ? null : `${c.tool}\u0000${c.inputHash}`,
  );
  for (const calls of byInput) {
    const runs = runsOf(calls, pollable, (run, c) => run[0]?.outputHash === c.outputHash);
    for (const run of runs) if (run.length >= t.pollMinCalls) flags.push(pollFlag(scope, run));
  }
  return flags;
}

/** The key under which a successful call with a known result may extend a poll: its tool and input. */
export const pollKey = (c: ScopeCall): string | null => (pollable(c) ? inputKey(c) : null);

/** The polling_no_progress detector; failures and calls without a result hash cannot extend a poll. */
export const polling: LoopDetector = {
  kinds: ['polling_no_progress'],
  reads: 'tool',
  triggerKeys: keysOf(pollKey),
  triggerKey: pollKey,
  detect: detectPolling,
};
