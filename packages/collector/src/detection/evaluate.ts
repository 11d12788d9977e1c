// A scope's loop flags from its stored call sequence: the loop detectors over the calls in start order (every
// detector for a whole scope; for some tools' calls, those one tool decides, with the scope's stored flags that
// may supersede theirs), and the scope's rule: a conversation keeps only loops that cross traces (a loop inside
// one trace is flagged on the trace). The writer replaces the scope's stored loop flags with these, inside the
// batch's transaction.
import {
  DEFAULT_LOOP_THRESHOLDS,
  detectLoops,
  type KnownLoop,
  type LoopFlag,
  type LoopScope,
  type LoopThresholds,
} from '../detectors/loops/index.js';
import type { ScopeCheck } from './scopes.js';

export function evaluateScope(
  check: ScopeCheck,
  sequence: LoopScope & { known: readonly KnownLoop[] },
  thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): LoopFlag[] {
  const flags = detectLoops(
    sequence,
    thresholds,
    check.tools === null ? undefined : { known: sequence.known },
  );
  return check.scope === 'conversation' ? flags.filter((f) => f.traceIds.length > 1) : flags;
}
