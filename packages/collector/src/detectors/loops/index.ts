// The loop detectors, registered in one list, and how their flags are combined: every detector runs over the
// scope, then a flag is dropped when a more specific kind already explains all of its calls (a cycle of two
// tools explains the identical retries of each step). Adding a loop kind is a file here and one line below.
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

export const LOOP_DETECTORS: readonly LoopDetector[] = [repeats];

/**
 * Which kinds a kind supersedes when its flag covers all of the other flag's calls: one loop, one kind. The
 * repeat kinds among themselves stay as they were (an unrepaired input is also an identical retry).
 */
const SUPERSEDES: Partial<Record<LoopKind, readonly LoopKind[]>> = {};

/** Every trigger key of a call, over all detectors (the stage re-reads a scope when one may repeat). */
export function triggerKeys(call: ScopeCall): string[] {
  const keys: string[] = [];
  for (const d of LOOP_DETECTORS) keys.push(...d.triggerKeys(call));
  return keys;
}

/** The loop flags of one scope: every detector's, less those a more specific kind explains. */
export function detectLoops(
  scope: LoopScope,
  thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): LoopFlag[] {
  const flags = LOOP_DETECTORS.flatMap((d) => d.detect(scope, thresholds));
  return flags.filter(
    (f) =>
      !flags.some((g) => {
        if (g === f || !SUPERSEDES[g.kind]?.includes(f.kind)) return false;
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
