// Retry-loop detectors (DESIGN.md §4), per trace or per conversation: pure functions over the tool calls of
// one scope in time order, so they run the same on the writer thread and in tests.

export type LoopCall = {
  traceId: string;
  spanId: string;
  tool: string;
  inputHash: string | null;
  startNs: bigint;
  /** Our code, else error.type; null on success. */
  code: string | null;
  retryable: boolean | null;
  partialEffect: boolean;
  effect: string | null;
  idempotencyKeyHash: string | null;
};

export type LoopKind =
  | 'identical_retry'
  | 'unrepaired_invalid_input'
  | 'retry_after_non_retryable'
  | 'unsafe_write_retry';

export type LoopFlag = {
  kind: LoopKind;
  severity: 'warning' | 'error';
  tool: string;
  inputHash: string;
  count: number;
  firstNs: bigint;
  lastNs: bigint;
  traceIds: string[];
  spanIds: string[];
  summary: string;
};

export type LoopThresholds = {
  /** Calls with one tool and one input hash that make an identical retry (default 3). */
  identicalRetryMin: number;
  /** Attempts a read may make after RETRYABLE failures before repeating is a loop (default 3). */
  retryCap: number;
};

export const DEFAULT_LOOP_THRESHOLDS: LoopThresholds = { identicalRetryMin: 3, retryCap: 3 };

const unique = (xs: string[]) => [...new Set(xs)];

/** Flags of one scope's calls (any order; sorted here). */
export function detectLoops(
  calls: LoopCall[],
  t: LoopThresholds = DEFAULT_LOOP_THRESHOLDS,
): LoopFlag[] {
  const groups = new Map<string, LoopCall[]>();
  for (const c of calls) {
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
    const first = group[0] as LoopCall;
    const last = group.at(-1) as LoopCall;
    const base = (
      kind: LoopKind,
      severity: LoopFlag['severity'],
      members: LoopCall[],
      summary: string,
    ): LoopFlag => ({
      kind,
      severity,
      tool: first.tool,
      inputHash: first.inputHash ?? '',
      count: members.length,
      firstNs: (members[0] ?? first).startNs,
      lastNs: (members.at(-1) ?? last).startNs,
      traceIds: unique(members.map((m) => m.traceId)),
      spanIds: members.map((m) => m.spanId),
      summary,
    });
    const failures = group.filter((c) => c.code !== null);
    // A retry is a repeat after a failure: identical successful reads (polling) are not loops.
    if (failures.length > 0 && group.length >= t.identicalRetryMin) {
      const allButLastTransient = group
        .slice(0, -1)
        .every((c) => c.code === 'RETRYABLE' && c.retryable === true);
      const withinCap = allButLastTransient && group.length <= t.retryCap;
      if (!withinCap) {
        flags.push(
          base(
            'identical_retry',
            'error',
            group,
            `${first.tool} was called ${group.length} times with the same input; ${failures.length} of those calls failed.`,
          ),
        );
      }
    }
    // Pairs: a failure and the call right after it with the same input.
    const unrepaired: LoopCall[] = [];
    const nonRetryable: LoopCall[] = [];
    const unsafe: LoopCall[] = [];
    for (let i = 1; i < group.length; i++) {
      const prev = group[i - 1] as LoopCall;
      const cur = group[i] as LoopCall;
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
      flags.push(
        base(
          'unrepaired_invalid_input',
          'error',
          dedupe(unrepaired),
          `${first.tool} got INVALID_INPUT and was called again with the same input ${n} time${n > 1 ? 's' : ''}: the agent did not fix the fields it was told about.`,
        ),
      );
    }
    if (nonRetryable.length > 0) {
      const codes = unique(nonRetryable.filter((_, i) => i % 2 === 0).map((c) => c.code ?? ''));
      flags.push(
        base(
          'retry_after_non_retryable',
          'warning',
          dedupe(nonRetryable),
          `${first.tool} was repeated with the same input after a failure its executor said not to retry (retryable = false; the failure's code was ${codes.join(', ')}).`,
        ),
      );
    }
    if (unsafe.length > 0) {
      flags.push(
        base(
          'unsafe_write_retry',
          'error',
          dedupe(unsafe),
          `${first.tool} (a write) was retried without an idempotency key after a failure that may have applied its effect: a duplicate effect is possible.`,
        ),
      );
    }
  }
  return flags;
}

function dedupe(calls: LoopCall[]): LoopCall[] {
  const seen = new Set<string>();
  const out: LoopCall[] = [];
  for (const c of calls) {
    if (seen.has(c.spanId)) continue;
    seen.add(c.spanId);
    out.push(c);
  }
  return out;
}
