// The loop detectors, registered in one list, and how their flags are combined: every detector runs over the
// scope, then a flag is dropped when a more specific kind already explains all of its calls (a cycle of two
// tools explains the identical retries of each step). Adding a loop kind is a file here and one line below.
import { churn } from './churn.js';
import { cycles } from './cycles.js';
import { polling } from './polling.js';
import { repeats } from './repeats.js';
import {
  DEFAULT_LOOP_THRESHOLDS,
  type LoopDetector,
  type LoopFlag,
  type LoopKind,
  type LoopScope,
  type LoopThresholds,
  type ScopeCall,
} from './scope.js';
import { taskPolling } from './task-polling.js';

/** Every loop detector; each runs over every scope, and their flags are arbitrated by SUPERSEDES below. */
export const LOOP_DETECTORS: readonly LoopDetector[] = [
  repeats,
  cycles,
  churn,
  polling,
  taskPolling,
];

/**
 * Which kinds a kind supersedes when its flag covers all of the other flag's calls: one loop, one kind. The
 * repeat kinds among themselves stay as they were (an unrepaired input is also an identical retry).
 *
 * - tool_cycle supersedes identical_retry, retry_after_non_retryable and polling_no_progress: every step of a
 *   cycle repeats its input, so a step that fails each round is also an identical retry, and a step that reads
 *   the same result each round also a poll; the cycle is the loop the agent is in, the repeats only its parts.
 *   It also supersedes argument_churn: a tool going round the same three or more inputs inside a cycle churns,
 *   but the cycle says more (the same inputs come back in the same order).
 * - argument_churn supersedes identical_retry and retry_after_non_retryable: an input tried twice within a churn
 *   is one of its variants, and the churn (new values, one failure) is what the agent is doing.
 * - unrepaired_invalid_input and unsafe_write_retry are never superseded: they say something no loop kind says
 *   (the validation issues were ignored; a write's effect may be duplicated), and they are errors to act on.
 * - polling_no_progress supersedes nothing: its calls all succeed, so no failure-based flag lies within one.
 * - polling_faster_than_interval is about one call's own polls, which no other kind sees: it supersedes nothing
 *   and nothing supersedes it.
 */
const SUPERSEDES: Partial<Record<LoopKind, readonly LoopKind[]>> = {
  tool_cycle: [
    'identical_retry',
    'retry_after_non_retryable',
    'polling_no_progress',
    'argument_churn',
  ],
  argument_churn: ['identical_retry', 'retry_after_non_retryable'],
};

/**
 * A trigger key of a call: whether the detector behind it needs the whole scope or this tool's calls, how many
 * earlier calls under the key make a re-read worth it, and for a detector of runs (LoopDetector.endsRun) the
 * run a key counts in: the detector's and the tool's, which the tool's run-ending calls reset.
 */
export type TriggerKey = { key: string; wholeScope: boolean; prior: number; run?: string };

/**
 * The run of one tool's calls a run detector's keys count in. One string per detector and tool, kept: the stage
 * looks runs up by it for every call, and a string used before hashes at no cost (bounded, as tools are few).
 */
const runNames = new Map<LoopDetector, Map<string, string>>();
function runOf(d: LoopDetector, tool: string): string {
  let names = runNames.get(d);
  if (!names || names.size >= 10_000) {
    names = new Map();
    runNames.set(d, names);
  }
  let name = names.get(tool);
  if (name === undefined) {
    name = `${d.kinds[0]}\u0000${tool}`;
    names.set(tool, name);
  }
  return name;
}

/** What the stage needs of each detector to count its keys, fixed for a set of thresholds. */
type KeyPlan = { detector: LoopDetector; prior: number; wholeScope: boolean }[];
const plans = new WeakMap<LoopThresholds, KeyPlan>();
function keyPlan(thresholds: LoopThresholds): KeyPlan {
  let plan = plans.get(thresholds);
  if (!plan) {
    plan = LOOP_DETECTORS.map((detector) => ({
      detector,
      // 0 for a detector whose flag one call makes (its keys need no earlier call).
      prior: Math.max(0, detector.priorCalls?.(thresholds) ?? 1),
      wholeScope: detector.reads === 'scope',
    }));
    plans.set(thresholds, plan);
  }
  return plan;
}

/** Every trigger key of a call, over all detectors (the stage re-reads a scope when one may repeat). */
export function triggerKeys(
  call: ScopeCall,
  thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): TriggerKey[] {
  const keys: TriggerKey[] = [];
  const plan = keyPlan(thresholds);
  // Indexed loops: this runs for every call of every batch, and iterators were a fifth of what it allocated.
  for (let p = 0; p < plan.length; p++) {
    const { detector: d, prior, wholeScope } = plan[p] as KeyPlan[number];
    const own = d.triggerKeys(call);
    for (let i = 0; i < own.length; i++) {
      const key = own[i] as string;
      if (d.endsRun) {
        // A run detector's key is its own, counted in the tool's run.
        keys.push({ key, wholeScope, prior, run: runOf(d, call.tool) });
        continue;
      }
      // Detectors that share a key (flag-of.ts inputKey) share its count: the first earlier call any of them
      // needs, and the wider read.
      let same: TriggerKey | undefined;
      for (let j = 0; j < keys.length && !same; j++) {
        const k = keys[j] as TriggerKey;
        if (k.key === key && k.run === undefined) same = k;
      }
      if (same) {
        same.wholeScope ||= wholeScope;
        same.prior = Math.min(same.prior, prior);
      } else keys.push({ key, wholeScope, prior });
    }
  }
  return keys;
}

/** The runs a call ends: of each run detector for which it is a run-ending call of its tool. */
export function runsEnded(call: ScopeCall): string[] {
  const out: string[] = [];
  for (let i = 0; i < LOOP_DETECTORS.length; i++) {
    const d = LOOP_DETECTORS[i] as LoopDetector;
    if (d.endsRun?.(call)) out.push(runOf(d, call.tool));
  }
  return out;
}

/** The kinds of the detectors that one tool's calls decide: what a re-read of some tools re-evaluates. */
export const TOOL_LOCAL_KINDS: readonly LoopKind[] = LOOP_DETECTORS.filter(
  (d) => d.reads === 'tool',
).flatMap((d) => d.kinds);

/** The kinds that may supersede a tool-local kind: stored ones are kept in view when only some tools are re-read. */
export const SUPERSEDING_KINDS: readonly LoopKind[] = (
  Object.keys(SUPERSEDES) as LoopKind[]
).filter((k) => !TOOL_LOCAL_KINDS.includes(k));

/** A flag already stored that a re-evaluation of some tools must respect: its kind and calls. */
export type KnownLoop = { kind: string; spanIds: readonly string[] };

/**
 * The loop flags of one scope: every detector's, less those a more specific kind explains. With `part`, the
 * scope holds only some tools' calls: only the detectors those decide run, and stored flags of the kinds that
 * may supersede theirs (`part.known`) still do.
 */
export function detectLoops(
  scope: LoopScope,
  thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
  part?: { known: readonly KnownLoop[] },
): LoopFlag[] {
  const detectors = part ? LOOP_DETECTORS.filter((d) => d.reads === 'tool') : LOOP_DETECTORS;
  const flags = detectors.flatMap((d) => d.detect(scope, thresholds));
  const superseders: KnownLoop[] = [...flags, ...(part?.known ?? [])];
  return flags.filter(
    (f) =>
      !superseders.some((g) => {
        if (g === f || !SUPERSEDES[g.kind as LoopKind]?.includes(f.kind)) return false;
        const covered = new Set(g.spanIds);
        return f.spanIds.every((id) => covered.has(id));
      }),
  );
}

export {
  DEFAULT_LOOP_THRESHOLDS,
  LOOP_KINDS,
  type LoopFlag,
  type LoopKind,
  type LoopScope,
  type LoopThresholds,
  type ScopeCall,
  type ScopeModelCall,
  type Wasted,
} from './scope.js';
