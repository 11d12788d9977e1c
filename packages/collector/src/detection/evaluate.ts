// A scope's loop flags from its stored call sequence: every loop detector over the calls in start order, and
// the scope's rule: a conversation keeps only loops that cross traces (a loop inside one trace is flagged on the
// trace). The writer replaces the scope's stored loop flags with these, inside the batch's transaction.
import {
  DEFAULT_LOOP_THRESHOLDS,
  detectLoops,
  type LoopFlag,
  type LoopScope,
  type LoopThresholds,
} from '../detectors/loops/index.js';
import type { ScopeCheck } from './scopes.js';

export function evaluateScope(
  check: ScopeCheck,
  sequence: LoopScope,
  thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): LoopFlag[] {
  const flags = detectLoops(sequence, thresholds);
  return check.scope === 'conversation' ? flags.filter((f) => f.traceIds.length > 1) : flags;
}
