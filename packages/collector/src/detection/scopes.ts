// Which scopes a batch must re-evaluate for loops, and how much of each to read. A loop can only be completed by
// a new call whose trigger key (detectors/loops: each detector names the keys under which a call may extend one
// of its loops) was seen in the same scope before: a trace that existed before the batch, a key repeated within
// the batch, or a conversation whose stored key filter (key-filter.ts) may hold the key. A key of a detector
// that one tool's calls decide asks for that tool's calls only; a cycle's key asks for the whole scope. Nothing
// is kept between batches.
import type { TriggerKey } from '../detectors/loops/index.js';
import { filterAdd, filterHas, type KeyFilter, type KeyHash, keyHash } from './key-filter.js';
import { countRunKey, endRun } from './run-streaks.js';

export type ScopeKind = 'trace' | 'conversation';

/** A scope to re-read and re-evaluate: a trace id or a conversation id, and the tools to read (null: all). */
export type ScopeCheck = { scope: ScopeKind; key: string; tools: string[] | null };

/**
 * A trigger key as the stage counts it: hashed once, whatever the number of rungs and scopes it is counted in;
 * for a run detector's key, the hash of the run it counts in.
 */
export type TouchedKey = { hash: KeyHash; wholeScope: boolean; prior: number; run: KeyHash | null };

/** `runHash`: how the key's run is hashed (a batch keeps one hash per run; its runs are few). */
export const touchedKey = (
  k: TriggerKey,
  runHash: (run: string) => KeyHash = keyHash,
): TouchedKey => ({
  hash: keyHash(k.key),
  wholeScope: k.wholeScope,
  prior: k.prior,
  run: k.run === undefined ? null : runHash(k.run),
});

/**
 * A new call the batch counts (a server row, or a client row without one) with its trigger keys, its start, and
 * the runs it ends (detectors/loops runsEnded, hashed).
 */
export type TouchedCall = {
  traceId: string;
  conversationId: string | null;
  tool: string;
  startNs: bigint;
  keys: readonly TouchedKey[];
  ends: readonly KeyHash[];
};

/**
 * A key's number within one batch's counts, kept within V8's small integers (a Map of them hashes fastest).
 * Two keys sharing one only count together, which can ask for a re-read a key alone would not, never the other
 * way round.
 */
const idOf = (h: KeyHash) => (h.a ^ Math.imul(h.b, 0x9e3779b1)) & 0x3fffffff;

/**
 * How many times the filter has seen a key, up to `prior`: rung r stands for "seen at least r times" (a key
 * that needs more than one earlier call, as churn does, climbs one rung per call, so the filter counts it,
 * roughly), and the first missing rung stops the count.
 */
function storedCount(filter: KeyFilter, k: TouchedKey): number {
  let n = 0;
  while (n < k.prior && filterHas(filter, k.hash, n + 1)) n++;
  return n;
}

/** A key of one conversation in the batch: what its filter held, and how often the batch has it. */
type Counted = { key: TouchedKey; stored: number; seen: number };

/** Climbs each key one rung per call the batch has of it; true when a bit changed. */
function climb(filter: KeyFilter, counted: Iterable<Counted>): boolean {
  let changed = false;
  for (const { key, stored, seen } of counted) {
    const top = Math.min(key.prior, stored + seen);
    for (let r = stored + 1; r <= top; r++) if (filterAdd(filter, key.hash, r)) changed = true;
  }
  return changed;
}

type Due = { check: ScopeCheck; whole: boolean; tools: Set<string> };
type TraceDue = Due & { existed: boolean; seen: Map<number, number> };
type ConversationDue = Due & { filter: KeyFilter; keys: Map<number, Counted>; counted: boolean };

const mark = (s: Due, k: TouchedKey, tool: string) => {
  if (k.wholeScope) s.whole = true;
  else s.tools.add(tool);
};

/**
 * The scopes a batch must re-evaluate, and the conversations whose filters its keys changed (they join the
 * filters after the checks read them; most batches of a running conversation repeat known keys, and those
 * filters are not written back). `traceExisted` says whether a trace was stored before this batch; `filterOf`
 * gives a conversation's stored key filter.
 */
export function batchChecks(
  calls: readonly TouchedCall[],
  traceExisted: (traceId: string) => boolean,
  filterOf: (conversationId: string) => KeyFilter,
): { checks: ScopeCheck[]; changed: Set<string> } {
  const order: Due[] = [];
  const traces = new Map<string, TraceDue>();
  const conversations = new Map<string, ConversationDue>();
  for (const c of calls) {
    if (c.keys.length === 0 && c.ends.length === 0) continue;
    let t = traces.get(c.traceId);
    if (!t) {
      // A trace keeps no filter: one stored before the batch may hold anything.
      const check: ScopeCheck = { scope: 'trace', key: c.traceId, tools: null };
      t = {
        check,
        whole: false,
        tools: new Set(),
        existed: traceExisted(c.traceId),
        seen: new Map(),
      };
      traces.set(c.traceId, t);
      order.push(t);
    }
    for (const k of c.keys) {
      const id = idOf(k.hash);
      const before = t.seen.get(id) ?? 0;
      t.seen.set(id, before + 1);
      if (t.existed || before >= k.prior) mark(t, k, c.tool);
    }
    if (!c.conversationId) continue;
    let v = conversations.get(c.conversationId);
    if (!v) {
      const check: ScopeCheck = { scope: 'conversation', key: c.conversationId, tools: null };
      v = {
        check,
        whole: false,
        tools: new Set(),
        filter: filterOf(c.conversationId),
        keys: new Map(),
        counted: false,
      };
      conversations.set(c.conversationId, v);
      order.push(v);
    }
    for (const run of c.ends) if (endRun(v.filter.streaks, run, c.startNs)) v.counted = true;
    for (const k of c.keys) {
      const id = idOf(k.hash);
      let e = v.keys.get(id);
      if (!e) {
        e = { key: k, stored: storedCount(v.filter, k), seen: 0 };
        v.keys.set(id, e);
      }
      // A run key counts its calls since the run last ended, where the conversation keeps that count.
      const since =
        k.run === null
          ? null
          : countRunKey(v.filter.streaks, k.run, k.hash, c.startNs, e.seen === 0 && e.stored === 0);
      if (since !== null) v.counted = true;
      const earlier = since === null ? e.seen + e.stored : since - 1;
      e.seen++;
      if (earlier >= k.prior) mark(v, k, c.tool);
    }
  }
  const checks: ScopeCheck[] = [];
  for (const s of order) {
    if (s.whole) checks.push(s.check);
    else if (s.tools.size > 0) checks.push({ ...s.check, tools: [...s.tools].sort() });
  }
  const changed = new Set<string>();
  for (const [id, v] of conversations)
    if (climb(v.filter, v.keys.values()) || v.counted) changed.add(id);
  return { checks, changed };
}

/** Adds the keys of calls to a filter (rebuilding one from a scope read back), one rung per call. */
export function addKeys(filter: KeyFilter, keys: Iterable<readonly TouchedKey[]>): boolean {
  const counted = new Map<number, Counted>();
  for (const ks of keys)
    for (const k of ks) {
      const id = idOf(k.hash);
      const e = counted.get(id);
      if (e) e.seen++;
      else counted.set(id, { key: k, stored: storedCount(filter, k), seen: 1 });
    }
  return climb(filter, counted.values());
}
