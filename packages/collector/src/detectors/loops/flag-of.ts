// The parts the loop detectors share: a flag built from the calls it covers, calls grouped by a key, and runs.
import type { LoopFlag, LoopKind, ScopeCall } from './scope.js';

/**
 * A loop flag over `members` (the loop's calls in start order, at least one): the tool and input hash of its
 * first call, the start of its first and last calls, and its calls' traces (once each) and spans.
 */
export function flagOf(
  kind: LoopKind,
  severity: LoopFlag['severity'],
  members: readonly ScopeCall[],
  summary: string,
  evidence?: LoopFlag['evidence'],
): LoopFlag {
  const first = members[0] as ScopeCall;
  const last = members.at(-1) as ScopeCall;
  return {
    kind,
    severity,
    tool: first.tool,
    inputHash: first.inputHash ?? '',
    count: members.length,
    firstNs: first.startNs,
    lastNs: last.startNs,
    traceIds: [...new Set(members.map((m) => m.traceId))],
    spanIds: members.map((m) => m.spanId),
    summary,
    ...(evidence === undefined ? {} : { evidence }),
  };
}

/** Calls grouped by `key` in first-seen order, each group in the calls' order; a null key leaves a call out. */
export function groupBy(
  calls: readonly ScopeCall[],
  key: (c: ScopeCall) => string | null,
): ScopeCall[][] {
  const groups = new Map<string, ScopeCall[]>();
  for (const c of calls) {
    const k = key(c);
    if (k === null) continue;
    const list = groups.get(k);
    if (list) list.push(c);
    else groups.set(k, [c]);
  }
  return [...groups.values()];
}

/**
 * The maximal runs of `calls` (one tool's, or one input's, in start order): a call that does not `fit` ends the
 * run it would be in, and a call that fits but does not `continue` the current run starts the next one.
 */
export function runsOf(
  calls: readonly ScopeCall[],
  fits: (c: ScopeCall) => boolean,
  continues: (run: readonly ScopeCall[], c: ScopeCall) => boolean,
): ScopeCall[][] {
  const runs: ScopeCall[][] = [];
  let run: ScopeCall[] = [];
  for (const c of calls) {
    if (!fits(c)) {
      runs.push(run);
      run = [];
    } else if (run.length === 0 || continues(run, c)) run.push(c);
    else {
      runs.push(run);
      run = [c];
    }
  }
  runs.push(run);
  return runs.filter((r) => r.length > 0);
}

/**
 * The key under which a call repeats an input: its tool and input hash. A repeat, each step of a cycle and a poll
 * all need the same (tool, input) seen before, so their detectors share this one key and the stage counts it
 * once (index.ts triggerKeys merges a key two detectors give, reading as much as the wider of them needs).
 */
export function inputKey(c: Pick<ScopeCall, 'tool' | 'inputHash'>): string | null {
  // The detectors sharing this key ask for it one after another for the same call: the last key is kept, so
  // they get one string (compared by reference where the stage merges them) and it is built once.
  if (c.tool === last.tool && c.inputHash === last.inputHash) return last.key;
  last.tool = c.tool;
  last.inputHash = c.inputHash;
  last.key = c.inputHash === null ? null : `input\u0000${c.tool}\u0000${c.inputHash}`;
  return last.key;
}
const last: { tool: string | undefined; inputHash: string | null; key: string | null } = {
  tool: undefined,
  inputHash: null,
  key: null,
};

/** A detector's triggerKeys from a function giving a call's one key, or null when it has none. */
export const keysOf =
  (key: (c: ScopeCall) => string | null) =>
  (c: ScopeCall): readonly string[] => {
    const k = key(c);
    return k === null ? NO_KEYS : [k];
  };
const NO_KEYS: readonly string[] = Object.freeze([]);
