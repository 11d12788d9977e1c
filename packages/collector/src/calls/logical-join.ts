// The rule that joins the parts of one logical call (docs/span-contract.md, "One logical call"), in one place:
// the process stage applies it to a batch's new rows and the stored rows they may join, in any trace (decision
// 0054), and the reading of a trace's spans applies it again where nothing was stored. A part that awaits X and
// a part that resumes X, of the same tool and input hash (and the same parent span when both are in one trace and
// have one), are one call; so is every part with the same task hash. The joined call runs from its first part's start to its last part's end; its legs, input
// wait, polls and parts are the sums of its parts', its outcome, status and interval its last part's.
import { endsCall, type LogicalCall, POLL_PART_TOOL, type TaskFacts } from './logical-call.js';
import { KIND_CLIENT } from './sides.js';
import type { ToolCall } from './tool-call.js';

/** What a call ended with: the fields a joined call takes from its last part. */
export type CallOutcome = Pick<
  ToolCall,
  | 'code'
  | 'errorType'
  | 'reason'
  | 'retryable'
  | 'isError'
  | 'partialEffect'
  | 'outputHash'
  | 'resultBytes'
  | 'resultTokens'
  | 'exceptionType'
  | 'exceptionMessage'
  | 'issues'
>;

/** A call's outcome fields, copied. */
export function outcomeOf(c: CallOutcome): CallOutcome {
  return {
    code: c.code,
    errorType: c.errorType,
    reason: c.reason,
    retryable: c.retryable,
    isError: c.isError,
    partialEffect: c.partialEffect,
    outputHash: c.outputHash,
    resultBytes: c.resultBytes,
    resultTokens: c.resultTokens,
    exceptionType: c.exceptionType,
    exceptionMessage: c.exceptionMessage,
    issues: c.issues,
  };
}

/** What the join reads of a row: a span's call, or a stored row (a joined call's row carries the whole call). */
export type LinkView = {
  /** The part's trace: parents are compared within one trace only. */
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  tool: string;
  inputHash: string | null;
  kind: number;
  proxy: boolean;
  startNs: bigint;
  logical: LogicalCall | null;
};

/** One logical call's rows, by index into the views: all of them in start order, and the one that holds it. */
export type PartGroup = {
  members: number[];
  /** The row that holds the call: its earliest part that names a tool; null when no part does yet. */
  holder: number | null;
};

const byStart = (views: readonly LinkView[]) => (a: number, b: number) => {
  const x = views[a] as LinkView;
  const y = views[b] as LinkView;
  if (x.startNs !== y.startNs) return x.startNs < y.startNs ? -1 : 1;
  return x.spanId < y.spanId ? -1 : x.spanId > y.spanId ? 1 : 0;
};

/**
 * The logical calls of several parts among `views` (rows of one trace or several): each group of two or more rows, and
 * each `tasks/get` part that joins nothing (its group of one has no holder). A client's span is no part: the
 * client adapter sees a call whole, and its row pairs with the server's (pairing.ts). Parts join only parts of
 * the same observer (proxy rows with proxy rows), since a proxy's row and a server's row of one call are sides.
 */
export function groupParts(views: readonly LinkView[]): PartGroup[] {
  const parent = new Map<number, number>();
  const root = (i: number): number => {
    let r = i;
    for (let p = parent.get(r); p !== undefined && p !== r; p = parent.get(r)) r = p;
    parent.set(i, r);
    return r;
  };
  const union = (a: number, b: number) => {
    const ra = root(a);
    const rb = root(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  const tasks = new Map<string, number>();
  const waiting = new Map<string, number[]>();
  const resuming: number[] = [];
  views.forEach((v, i) => {
    const l = v.logical;
    if (l === null || v.kind === KIND_CLIENT) return;
    parent.set(i, i);
    const level = v.proxy ? 'p' : 's';
    if (l.task?.idHash) {
      const key = `${level}\u0000${l.task.idHash}`;
      const first = tasks.get(key);
      if (first === undefined) tasks.set(key, i);
      else union(first, i);
    }
    if (l.awaits !== null) {
      const key = legKey(level, v, l.awaits);
      const list = waiting.get(key);
      if (list) list.push(i);
      else waiting.set(key, [i]);
    }
    if (l.resumes !== null) resuming.push(i);
  });
  const used = new Set<number>();
  resuming.sort(byStart(views));
  for (const i of resuming) {
    const v = views[i] as LinkView;
    const candidates = waiting.get(legKey(v.proxy ? 'p' : 's', v, v.logical?.resumes ?? ''));
    const match = candidates && legBefore(views, candidates, v, used);
    if (match === undefined) continue;
    used.add(match);
    union(match, i);
  }
  const groups = new Map<number, number[]>();
  for (const i of parent.keys()) {
    const r = root(i);
    const list = groups.get(r);
    if (list) list.push(i);
    else groups.set(r, [i]);
  }
  const out: PartGroup[] = [];
  for (const members of groups.values()) {
    const lone = members.length === 1;
    if (lone && (views[members[0] as number] as LinkView).tool !== POLL_PART_TOOL) continue;
    members.sort(byStart(views));
    const holder = members.find((m) => (views[m] as LinkView).tool !== POLL_PART_TOOL);
    out.push({ members, holder: holder ?? null });
  }
  return out;
}

const legKey = (level: string, v: LinkView, state: string) =>
  `${level}\u0000${v.tool}\u0000${v.inputHash ?? ''}\u0000${state}`;

/**
 * The waiting part a resuming part continues: one not taken yet of the same trace whose parent is the resumer's
 * (two identical calls waiting at once are told apart by the client spans their legs carry), else one of the same
 * trace of which one has no parent, else one in another trace (a client that sends no trace context makes each
 * leg a trace of its own; parents in two traces say nothing of each other); the earliest first (identical calls
 * told apart by nothing are indistinguishable, so taken in order).
 */
function legBefore(
  views: readonly LinkView[],
  candidates: readonly number[],
  v: LinkView,
  used: ReadonlySet<number>,
): number | undefined {
  const free = candidates.filter((c) => !used.has(c)).sort(byStart(views));
  const inTrace = free.filter((c) => (views[c] as LinkView).traceId === v.traceId);
  const same = inTrace.find((c) => {
    const p = (views[c] as LinkView).parentSpanId;
    return p !== null && p === v.parentSpanId;
  });
  if (same !== undefined) return same;
  const open = inTrace.find((c) => {
    const p = (views[c] as LinkView).parentSpanId;
    return p === null || v.parentSpanId === null;
  });
  return open ?? free.find((c) => (views[c] as LinkView).traceId !== v.traceId);
}

/** What the merge reads of one part: a span's call, or a stored row holding a call joined before. */
export type MergePart = {
  startNs: bigint;
  durationMs: number;
  logical: LogicalCall | null;
  outcome: CallOutcome;
};

/** The joined call's time, facts and outcome: what its holder's row carries. */
export type MergedCall = {
  startNs: bigint;
  durationMs: number;
  logical: LogicalCall;
  outcome: CallOutcome;
};

const endOf = (p: MergePart) => p.startNs + BigInt(Math.round(p.durationMs * 1e6));
const lastStartOf = (p: MergePart) => p.logical?.lastStartNs ?? p.startNs;

/**
 * Which of two parts came later in the call: a part that ended it (no leg awaited, no task left unfinished)
 * comes after one that did not, whatever the clocks say (processes' clocks differ, and a part waiting for its
 * next leg ends only at its idle timeout); between two of a kind, the later start.
 */
function later(a: MergePart, b: MergePart): number {
  const fa = endsCall(a.logical) ? 1 : 0;
  const fb = endsCall(b.logical) ? 1 : 0;
  if (fa !== fb) return fa - fb;
  const x = lastStartOf(a);
  const y = lastStartOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The links of the joined call no part of it answers (parts in call order): the state its latest part still
 * awaits, and the state its earliest part resumed from a leg not among them.
 */
function openEnds(ordered: readonly MergePart[]): Pick<LogicalCall, 'awaits' | 'resumes'> {
  const awaited = new Set<string>();
  const resumed = new Set<string>();
  for (const p of ordered) {
    if (p.logical?.awaits) awaited.add(p.logical.awaits);
    if (p.logical?.resumes) resumed.add(p.logical.resumes);
  }
  let awaits: string | null = null;
  let resumes: string | null = null;
  for (const p of ordered) {
    const l = p.logical;
    if (l?.awaits && !resumed.has(l.awaits)) awaits = l.awaits;
    if (l?.resumes && !awaited.has(l.resumes) && resumes === null) resumes = l.resumes;
  }
  return { awaits, resumes };
}

/**
 * The call `parts` make together (at least one; a part may itself be a call joined before, so the merge of
 * merges is the merge of all their parts).
 */
export function mergeParts(parts: readonly MergePart[]): MergedCall {
  let first = parts[0] as MergePart;
  for (const p of parts) if (p.startNs < first.startNs) first = p;
  // Later parts' facts override earlier ones': the interval and status a task last had.
  const ordered = [...parts].sort(later);
  const last = ordered.at(-1) as MergePart;
  let legs = 0;
  let inputWaitMs = 0;
  let count = 0;
  let task = null as TaskFacts | null;
  for (const p of ordered) {
    const l = p.logical;
    legs += l?.legs ?? 1;
    inputWaitMs += l?.inputWaitMs ?? 0;
    count += l?.parts ?? 1;
    const t = l?.task;
    if (!t) continue;
    task = {
      polls: (task?.polls ?? 0) + t.polls,
      pollIntervalMs: t.pollIntervalMs ?? task?.pollIntervalMs ?? null,
      status: t.status ?? task?.status ?? null,
      idHash: task?.idHash ?? t.idHash,
    };
  }
  const end = endOf(last);
  return {
    startNs: first.startNs,
    durationMs: end > first.startNs ? Number(end - first.startNs) / 1e6 : 0,
    logical: {
      legs,
      inputWaitMs,
      task,
      ...openEnds(ordered),
      parts: count,
      lastStartNs: lastStartOf(last),
      joinedTo: null,
    },
    outcome: outcomeOf(last.outcome),
  };
}
