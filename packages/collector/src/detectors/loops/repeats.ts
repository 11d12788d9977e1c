// Repeats of one input: the same tool with the same input hash called again after a failure (identical_retry,
// unrepaired_invalid_input, retry_after_non_retryable, unsafe_write_retry). A pure function over one scope's
// calls, so it runs the same wherever the detection stage runs and in tests.
import { flagOf, inputKey, keysOf } from './flag-of.js';
import type {
  LoopDetector,
  LoopFlag,
  LoopKind,
  LoopScope,
  LoopThresholds,
  ScopeCall,
} from './scope.js';
import { computeWasted, wastedSummary } from './wasted.js';

const unique = (xs: string[]) => [...new Set(xs)];

/** The repeat flags of one scope's calls. */
function detectRepeats(scope: LoopScope, t: LoopThresholds): LoopFlag[] {
  const groups = new Map<string, ScopeCall[]>();
  for (const c of scope.calls) {
    if (!c.inputHash) continue;
    const key = `${c.tool}\u0000${c.inputHash}`;
    const list = groups.get(key);
    if (list) list.push(c);
    else groups.set(key, [c]);
  }
  const flags: LoopFlag[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
    const first = group[0] as ScopeCall;
    // Every repeat flag carries what it wasted (the calls after its first), said after the flag's own
    // sentence, which stays the summary's start (readers and tests match on it).
    const raise = (
      kind: LoopKind,
      severity: LoopFlag['severity'],
      members: ScopeCall[],
      sentence: string,
    ) => {
      const wasted = computeWasted(members, 1, scope.modelCalls);
      const summary = `${sentence} Wasted: ${wastedSummary(wasted)}.`;
      flags.push(flagOf(kind, severity, members, summary, { wasted }));
    };
    const failures = group.filter((c) => c.code !== null);
    // A retry is a repeat after a failure: identical successful reads (polling) are not loops.
    if (failures.length > 0 && group.length >= t.identicalRetryMin) {
      const allButLastTransient = group
        .slice(0, -1)
        .every((c) => c.code === 'RETRYABLE' && c.retryable === true);
      const withinCap = allButLastTransient && group.length <= t.retryCap;
      if (!withinCap) {
        raise(
          'identical_retry',
          'error',
          group,
          `${first.tool} was called ${group.length} times with the same input; ${failures.length} of those calls failed.`,
        );
      }
    }
    // Pairs: a failure and the call right after it with the same input.
    const unrepaired: ScopeCall[] = [];
    const nonRetryable: ScopeCall[] = [];
    const unsafe: ScopeCall[] = [];
    for (let i = 1; i < group.length; i++) {
      const prev = group[i - 1] as ScopeCall;
      const cur = group[i] as ScopeCall;
      const unsafeRepeat =
        prev.code !== null &&
        prev.partialEffect &&
        cur.effect === 'write' &&
        !cur.idempotencyKeyHash;
      // One pair, one flag: an unsafe write repeat is the more specific (and severe) reading of the same
      // repeat, so it is not also reported as a repeat after a non-retryable failure.
      if (unsafeRepeat) unsafe.push(prev, cur);
      else if (prev.code === 'INVALID_INPUT') unrepaired.push(prev, cur);
      else if (prev.code !== null && prev.retryable === false) nonRetryable.push(prev, cur);
    }
    if (unrepaired.length > 0) {
      const n = unrepaired.length / 2;
      raise(
        'unrepaired_invalid_input',
        'error',
        dedupe(unrepaired),
        `${first.tool} got INVALID_INPUT and was called again with the same input ${n} time${n > 1 ? 's' : ''}: the agent did not fix the fields it was told about.`,
      );
    }
    if (nonRetryable.length > 0) {
      const codes = unique(nonRetryable.filter((_, i) => i % 2 === 0).map((c) => c.code ?? ''));
      raise(
        'retry_after_non_retryable',
        'warning',
        dedupe(nonRetryable),
        `${first.tool} was repeated with the same input after a failure its executor said not to retry (retryable = false; the failure's code was ${codes.join(', ')}).`,
      );
    }
    if (unsafe.length > 0) {
      raise(
        'unsafe_write_retry',
        'error',
        dedupe(unsafe),
        `${first.tool} (a write) was retried without an idempotency key after a failure that may have applied its effect: a duplicate effect is possible.`,
      );
    }
  }
  return flags;
}

function dedupe(calls: ScopeCall[]): ScopeCall[] {
  const seen = new Set<string>();
  const out: ScopeCall[] = [];
  for (const c of calls) {
    if (seen.has(c.spanId)) continue;
    seen.add(c.spanId);
    out.push(c);
  }
  return out;
}

/** The key under which a call repeats an input: the same tool with the same input hash. */
export const repeatKey = inputKey;

export const repeats: LoopDetector = {
  kinds: [
    'identical_retry',
    'unrepaired_invalid_input',
    'retry_after_non_retryable',
    'unsafe_write_retry',
  ],
  reads: 'tool',
  triggerKeys: keysOf(repeatKey),
  triggerKey: repeatKey,
  detect: detectRepeats,
};
