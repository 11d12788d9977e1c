// argument_churn: the agent keeps calling one tool with new values of the same shape, and every call fails the
// same way: it changes arguments without fixing what it was told. A pure function over one scope's calls.
import { flagOf, groupBy, keysOf, runsOf } from './flag-of.js';
import type { LoopDetector, LoopFlag, LoopScope, LoopThresholds, ScopeCall } from './scope.js';
import { computeWasted, wastedSummary } from './wasted.js';

/** Distinct inputs a run needs: two could be one fix tried and undone, three is churning. */
const MIN_DISTINCT_INPUTS = 3;

/**
 * Whether a call can be in a churn run at all: it failed, and its input has a hash and a shape (without them
 * "the same shape, other values" cannot be told). Anything else of the tool, a success above all, ends a run.
 */
const churnable = (c: ScopeCall): boolean =>
  c.code !== null && c.inputHash !== null && c.inputShape !== null;

/** The first failing path recorded in a run, if any call of it recorded issues. */
const pathOf = (run: readonly ScopeCall[]): string | null =>
  run.find((r) => r.firstIssuePath !== null)?.firstIssuePath ?? null;

/**
 * Whether failing call `c` goes on churn run `run`: the same code and input shape, and where both recorded
 * issues, the same first failing path. A call that does not starts the next run. `paths` keeps each run's path
 * by its first call, so a long run is not re-scanned for every call (agents have churned thousands of times).
 */
const continuesWith =
  (paths: Map<ScopeCall, string>) =>
  (run: readonly ScopeCall[], c: ScopeCall): boolean => {
    const first = run[0] as ScopeCall;
    if (c.code !== first.code || c.inputShape !== first.inputShape) return false;
    const path = paths.get(first) ?? first.firstIssuePath;
    if (c.firstIssuePath === null) return true;
    if (path === null) paths.set(first, c.firstIssuePath);
    return path === null || c.firstIssuePath === path;
  };

/** The flag of one churn run over its distinct input hashes. */
function churnFlag(scope: LoopScope, run: readonly ScopeCall[], hashes: string[]): LoopFlag {
  const first = run[0] as ScopeCall;
  const code = first.code ?? '';
  const path = pathOf(run);
  const wasted = computeWasted(run, 1, scope.modelCalls);
  const at = path === null ? '' : ` at ${path}`;
  return flagOf(
    'argument_churn',
    // Every call of a churn failed, as in identical_retry: an error, where a cycle or a poll is a warning.
    'error',
    run,
    `${first.tool} was called ${run.length} times in a row with ${hashes.length} different inputs of one shape, and every call failed with ${code}${at}: the agent kept changing values without fixing what it was told. Wasted: ${wastedSummary(wasted)}.`,
    { inputHashes: hashes, code, ...(path === null ? {} : { path }), wasted },
  );
}

/** The argument_churn flags of one scope's calls: per tool, each maximal run of failing calls that churns. */
function detectChurn(scope: LoopScope, t: LoopThresholds): LoopFlag[] {
  const flags: LoopFlag[] = [];
  for (const calls of groupBy(scope.calls, (c) => c.tool)) {
    for (const run of runsOf(calls, churnable, continuesWith(new Map()))) {
      if (run.length < t.churnMinCalls) continue;
      const hashes = [...new Set(run.map((c) => c.inputHash ?? ''))];
      if (hashes.length >= MIN_DISTINCT_INPUTS) flags.push(churnFlag(scope, run, hashes));
    }
  }
  return flags;
}

/** The key under which a failing call may extend a churn: its tool, input shape and code. */
export const churnKey = (c: ScopeCall): string | null =>
  churnable(c) ? `churn\u0000${c.tool}\u0000${c.inputShape}\u0000${c.code}` : null;

/**
 * The argument_churn detector; a call that cannot be in a churn run (a success above all) cannot extend one, so
 * it has no key, and it ends the tool's runs.
 */
export const churn: LoopDetector = {
  kinds: ['argument_churn'],
  reads: 'tool',
  priorCalls: (t) => t.churnMinCalls - 1,
  triggerKeys: keysOf(churnKey),
  triggerKey: churnKey,
  endsRun: (c) => !churnable(c),
  detect: detectChurn,
};
