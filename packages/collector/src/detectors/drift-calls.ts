// The failing calls behind a drift flag: how many agents they come from (one agent repeating itself is a loop,
// not drift), which of them the flag links, and when they happened. Pure functions over the calls the reader
// gave, as the other detectors are; and any drift-stage flag dated from the calls it links.
import type { Flag } from './flag.js';

/** A call that failed with the drift's code, as drift reads it: where it ran, what it sent, when it started. */
export type FailingCall = {
  traceId: string;
  spanId: string;
  conversationId: string | null;
  inputHash: string | null;
  startNs: bigint;
};

/** A tool's calls failing with one code in the recent part of the window. */
export type FailingCalls = {
  /** Newest first, bounded by the reader. */
  newest: readonly FailingCall[];
  /** The first of them in the recent part (null when there was none). */
  first: FailingCall | null;
};

/**
 * How many agents the calls come from, at least: the calls of one conversation are one agent's, and so are the
 * calls of one trace; calls outside any conversation that send the same input are taken for one agent's too,
 * since an uninstrumented client behind the proxy gets a new trace for every call, and its repeats would
 * otherwise count as agents. So the number is that of groups of calls joined by a conversation, a trace, or an
 * input sent outside any conversation.
 */
export function agentsOf(calls: readonly FailingCall[]): number {
  const parent = new Map<string, string>();
  const root = (k: string): string => {
    let r = k;
    for (let up = parent.get(r); up !== undefined && up !== r; up = parent.get(r)) r = up;
    parent.set(k, r);
    return r;
  };
  const join = (a: string, b: string) => {
    const ra = root(a);
    const rb = root(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  for (const c of calls) {
    const trace = `t\u0000${c.traceId}`;
    if (!parent.has(trace)) parent.set(trace, trace);
    if (c.conversationId !== null) join(trace, `c\u0000${c.conversationId}`);
    else if (c.inputHash !== null) join(trace, `i\u0000${c.inputHash}`);
  }
  const roots = new Set<string>();
  for (const c of calls) roots.add(root(`t\u0000${c.traceId}`));
  return roots.size;
}

/** How many calls a drift flag links at most. */
const LINKED = 5;

/**
 * The calls a drift flag links and dates itself from: the first failing call of the recent part and the
 * newest, then the newest call of each other trace, newest first, up to five in all.
 */
export function linkedCalls(f: FailingCalls): FailingCall[] {
  const out: FailingCall[] = [];
  const spans = new Set<string>();
  const traces = new Set<string>();
  const link = (c: FailingCall) => {
    if (spans.has(c.spanId)) return;
    spans.add(c.spanId);
    traces.add(c.traceId);
    out.push(c);
  };
  if (f.first) link(f.first);
  if (f.newest[0]) link(f.newest[0]);
  for (const c of f.newest) {
    if (out.length >= LINKED) break;
    if (!traces.has(c.traceId)) link(c);
  }
  return out;
}

/** When the linked calls happened: the first one's start and the newest one's. */
export function seenOf(calls: readonly LinkedCall[]): { firstNs: bigint; lastNs: bigint } | null {
  const [head] = calls;
  if (!head) return null;
  let firstNs = head.startNs;
  let lastNs = head.startNs;
  for (const c of calls) {
    if (c.startNs < firstNs) firstNs = c.startNs;
    if (c.startNs > lastNs) lastNs = c.startNs;
  }
  return { firstNs, lastNs };
}

/** A call as a flag links it: its trace and span, and when it started. */
export type LinkedCall = { traceId: string; spanId: string; startNs: bigint };

/**
 * `flag` dated from `calls` (the first's start and the newest's), whose traces it then lists first in its
 * evidence (the first call's, the newest's, the others' in time order); unchanged when there are none (a schema
 * flag read from the per-tool tables then keeps their times).
 */
export function datedFrom(flag: Flag, calls: readonly LinkedCall[]): Flag {
  const byStart = [...calls].sort((a, b) =>
    a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0,
  );
  const first = byStart[0];
  const newest = byStart.at(-1);
  if (!first || !newest) return flag;
  const traces = [first, newest, ...byStart].map((c) => c.traceId);
  return {
    ...flag,
    firstSeen: isoOf(first.startNs),
    lastSeen: isoOf(newest.startNs),
    evidence: {
      ...flag.evidence,
      traceIds: [...new Set([...traces, ...(flag.evidence.traceIds ?? [])])],
    },
  };
}

const isoOf = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
