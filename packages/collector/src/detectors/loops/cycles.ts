// tool_cycle: the agent goes round a cycle of 2 to 5 calls (each a tool with one input) again and again with no
// progress, e.g. search → fetch → summarise with the same inputs and the same results. A pure function over one
// scope's calls; a cycle of one call is a repeat (repeats.ts).
import { flagOf, inputKey, keysOf } from './flag-of.js';
import type { LoopDetector, LoopFlag, LoopScope, LoopThresholds, ScopeCall } from './scope.js';
import { computeWasted, wastedSummary } from './wasted.js';

/** The longest cycle looked for: agents' loops beyond five steps are rare, and each period is one more scan. */
const MAX_PERIOD = 5;

/** A call's step in a cycle; a call without an input hash cannot be told equal to another, so it has none. */
const stepKey = (c: ScopeCall): string | null =>
  c.inputHash === null ? null : `${c.tool}\u0000${c.inputHash}`;

/**
 * The maximal stretches of `steps` that repeat with period `k`, as [start, end) of call indexes: every step from
 * start + k on equals the step k before it. A stretch starts as early as it can, so its first k calls are the
 * cycle as the agent first went round it.
 */
function periodicRuns(steps: readonly (string | null)[], k: number): [number, number][] {
  const runs: [number, number][] = [];
  let from = -1;
  for (let j = k; j <= steps.length; j++) {
    const same = j < steps.length && steps[j] !== null && steps[j] === steps[j - k];
    if (same && from < 0) from = j;
    else if (!same && from >= 0) {
      runs.push([from - k, j]);
      from = -1;
    }
  }
  return runs;
}

/**
 * Whether a round of steps is not itself a shorter cycle gone round more than once: ABAB is the cycle AB, and AA
 * a repeat, so only the smallest period is reported.
 */
function primitive(round: readonly (string | null)[]): boolean {
  for (let d = 1; d < round.length; d++) {
    if (round.length % d !== 0) continue;
    if (round.every((s, j) => j < d || s === round[j - d])) return false;
  }
  return true;
}

/** The calls of round `r` of a run starting at `start` with period `k`. */
const roundOf = (calls: readonly ScopeCall[], start: number, k: number, r: number) =>
  calls.slice(start + r * k, start + (r + 1) * k);

/** How far from round r0 the rounds show no progress by their results, and by failures. */
function stuckUntil(
  calls: readonly ScopeCall[],
  start: number,
  k: number,
  r0: number,
  total: number,
) {
  // Results: in each position, every known result hash equals the first known one. With no two known results
  // in any one position there is no "same result" to claim, only failures can then show no progress.
  const known: (string | null)[] = Array.from({ length: k }, () => null);
  let compared = false;
  let byResults = r0 - 1;
  for (let r = r0; r < total; r++) {
    const round = roundOf(calls, start, k, r);
    const agrees = round.every(
      (c, p) => c.outputHash === null || known[p] === null || known[p] === c.outputHash,
    );
    if (!agrees) break;
    round.forEach((c, p) => {
      if (c.outputHash === null) return;
      if (known[p] !== null) compared = true;
      else known[p] = c.outputHash;
    });
    byResults = r;
  }
  let byFailures = r0 - 1;
  for (let r = r0; r < total; r++) {
    if (!roundOf(calls, start, k, r).some((c) => c.code !== null)) break;
    byFailures = r;
  }
  return { byResults: compared ? byResults : r0 - 1, byFailures };
}

/** The flag of rounds r0..r1 of a run starting at call `start` with period `k`. */
function cycleFlag(
  scope: LoopScope,
  at: { start: number; k: number; r0: number; r1: number },
  byFailures: boolean,
): LoopFlag {
  const { start, k, r0, r1 } = at;
  const members = scope.calls.slice(start + r0 * k, start + (r1 + 1) * k);
  const round = members.slice(0, k);
  const n = r1 - r0 + 1;
  const wasted = computeWasted(members, k, scope.modelCalls);
  const path = round.map((c) => c.tool).join(' → ');
  const reason = byFailures ? 'a failed call in every round' : 'the same results every round';
  return flagOf(
    'tool_cycle',
    'warning',
    members,
    `A cycle of ${k} calls (${path}) ran ${n} times in a row with the same inputs and ${reason}. Wasted: ${wastedSummary(wasted, n - 1)}.`,
    {
      cycle: round.map((c) => ({ tool: c.tool, inputHash: c.inputHash ?? '' })),
      rounds: n,
      wasted,
    },
  );
}

/** The tool_cycle flags of one scope's calls: each maximal stretch of stuck rounds of a cycle, once. */
function detectCycles(scope: LoopScope, t: LoopThresholds): LoopFlag[] {
  const steps = scope.calls.map(stepKey);
  const flags: LoopFlag[] = [];
  for (let k = 2; k <= MAX_PERIOD; k++) {
    for (const [start, end] of periodicRuns(steps, k)) {
      if (!primitive(steps.slice(start, start + k))) continue;
      const total = Math.floor((end - start) / k);
      let r0 = 0;
      while (r0 + t.cycleMinRounds <= total) {
        const { byResults, byFailures } = stuckUntil(scope.calls, start, k, r0, total);
        const r1 = Math.max(byResults, byFailures);
        if (r1 - r0 + 1 < t.cycleMinRounds) {
          r0++;
          continue;
        }
        flags.push(cycleFlag(scope, { start, k, r0, r1 }, byFailures >= r1));
        r0 = r1 + 1;
      }
    }
  }
  return flags;
}

/** The key under which a call may complete a cycle: each of a cycle's steps repeats, tool and input alike. */
export const cycleKey = inputKey;

/** The tool_cycle detector. */
export const cycles: LoopDetector = {
  kinds: ['tool_cycle'],
  reads: 'scope',
  triggerKeys: keysOf(cycleKey),
  triggerKey: cycleKey,
  detect: detectCycles,
};
