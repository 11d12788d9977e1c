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

/**
 * A call's trigger keys (triggerKeys) and the runs it ends (runsEnded) as columns, written over for each call in
 * turn: the stage's form. An array and an object per key, an array per detector and one for the ended runs, for
 * every call of every batch, were a tenth of what the writer thread allocated.
 */
export class CallKeys {
  length = 0;
  readonly key: string[] = [];
  readonly wholeScope: boolean[] = [];
  readonly prior: number[] = [];
  /** The run a run detector's key counts in (TriggerKey.run); null for another detector's key. */
  readonly run: (string | null)[] = [];
  ends = 0;
  /** The runs the call ends, up to `ends`. */
  readonly ended: string[] = [];
}

/** A key of `d` for the call, merged into an earlier one of another detector when they share it. */
function addKey(into: CallKeys, d: LoopDetector, tool: string, key: string, plan: KeyPlan[number]) {
  const { prior, wholeScope } = plan;
  if (d.endsRun) {
    // A run detector's key is its own, counted in the tool's run.
    setKey(into, into.length++, key, wholeScope, prior, runOf(d, tool));
    return;
  }
  // Detectors that share a key (flag-of.ts inputKey) share its count: the first earlier call any of them
  // needs, and the wider read.
  for (let j = 0; j < into.length; j++)
    if (into.key[j] === key && into.run[j] === null) {
      into.wholeScope[j] ||= wholeScope;
      into.prior[j] = Math.min(into.prior[j] as number, prior);
      return;
    }
  setKey(into, into.length++, key, wholeScope, prior, null);
}

function setKey(
  into: CallKeys,
  at: number,
  key: string,
  wholeScope: boolean,
  prior: number,
  run: string | null,
): void {
  into.key[at] = key;
  into.wholeScope[at] = wholeScope;
  into.prior[at] = prior;
  into.run[at] = run;
}

/** The call's trigger keys over all detectors, and the runs it ends, written into `into`. */
export function callKeys(
  call: ScopeCall,
  thresholds: LoopThresholds,
  into: CallKeys = new CallKeys(),
): CallKeys {
  into.length = 0;
  into.ends = 0;
  const plan = keyPlan(thresholds);
  // Indexed loops: this runs for every call of every batch, and iterators were a fifth of what it allocated.
  for (let p = 0; p < plan.length; p++) {
    const step = plan[p] as KeyPlan[number];
    const d = step.detector;
    if (d.triggerKey) {
      const key = d.triggerKey(call);
      if (key !== null) addKey(into, d, call.tool, key, step);
      continue;
    }
    const own = d.triggerKeys(call);
    for (let i = 0; i < own.length; i++) addKey(into, d, call.tool, own[i] as string, step);
  }
  for (let i = 0; i < LOOP_DETECTORS.length; i++) {
    const d = LOOP_DETECTORS[i] as LoopDetector;
    if (d.endsRun?.(call)) into.ended[into.ends++] = runOf(d, call.tool);
  }
  return into;
}

/** Every trigger key of a call, over all detectors (the stage re-reads a scope when one may repeat). */
export function triggerKeys(
  call: ScopeCall,
  thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): TriggerKey[] {
  const k = callKeys(call, thresholds);
  return k.key.slice(0, k.length).map((key, j) => {
    const wholeScope = k.wholeScope[j] as boolean;
    const prior = k.prior[j] as number;
    const run = k.run[j];
    return run === null || run === undefined
      ? { key, wholeScope, prior }
      : { key, wholeScope, prior, run };
  });
}

/** The runs a call ends: of each run detector for which it is a run-ending call of its tool. */
export function runsEnded(call: ScopeCall): string[] {
  const k = callKeys(call, DEFAULT_LOOP_THRESHOLDS);
  return k.ended.slice(0, k.ends);
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
