// Which scopes a batch must re-evaluate for loops, and how much of each to read. A loop can only be completed by
// a new call whose trigger key (detectors/loops: each detector names the keys under which a call may extend one
// of its loops) was seen in the same scope before: a trace that existed before the batch, a key repeated within
// the batch, or a conversation whose stored key filter (key-filter.ts) may hold the key. A key of a detector
// that one tool's calls decide asks for that tool's calls only; a cycle's key asks for the whole scope. Nothing
// is kept between batches.
import { filterAdd, filterHas, type KeyFilter, type KeyHash } from './key-filter.js';
import { countRunKey, endRun, streakId } from './run-streaks.js';
import { NO_RUN, type TouchedCalls } from './touched.js';

export type ScopeKind = 'trace' | 'conversation';

/** A scope to re-read and re-evaluate: a trace id or a conversation id, and the tools to read (null: all). */
export type ScopeCheck = { scope: ScopeKind; key: string; tools: string[] | null };

/**
 * A key's number within one batch's counts, kept within V8's small integers (a Map of them hashes fastest).
 * Two keys sharing one only count together, which can ask for a re-read a key alone would not, never the other
 * way round.
 */
const idOf = (a: number, b: number) => (a ^ Math.imul(b, 0x9e3779b1)) & 0x3fffffff;

/**
 * How many times the filter has seen a key, up to `prior`: rung r stands for "seen at least r times" (a key
 * that needs more than one earlier call, as churn does, climbs one rung per call, so the filter counts it,
 * roughly), and the first missing rung stops the count.
 */
function storedCount(filter: KeyFilter, hash: KeyHash, prior: number): number {
  let n = 0;
  while (n < prior && filterHas(filter, hash, n + 1)) n++;
  return n;
}

/**
 * A key of one conversation in the batch, its hash (one object with the counts, not two: one is made per key of
 * every conversation of every batch): what its filter held, and how often the batch has it.
 */
type Counted = KeyHash & { prior: number; stored: number; seen: number };

const counted = (filter: KeyFilter, t: TouchedCalls, k: number): Counted => {
  const prior = t.prior[k] as number;
  const c = { a: t.hashA[k] as number, b: t.hashB[k] as number, prior, stored: 0, seen: 0 };
  c.stored = storedCount(filter, c, prior);
  return c;
};

/** Climbs each key one rung per call the batch has of it; true when a bit changed. */
function climb(filter: KeyFilter, keys: Iterable<Counted>): boolean {
  let changed = false;
  for (const key of keys) {
    const { prior, stored, seen } = key;
    const top = Math.min(prior, stored + seen);
    for (let r = stored + 1; r <= top; r++) if (filterAdd(filter, key, r)) changed = true;
  }
  return changed;
}

type Due = { check: ScopeCheck; whole: boolean; tools: Set<string> };
type TraceDue = Due & { existed: boolean; seen: Map<number, number> };
type ConversationDue = Due & { filter: KeyFilter; keys: Map<number, Counted>; counted: boolean };

const mark = (s: Due, wholeScope: boolean, tool: string) => {
  if (wholeScope) s.whole = true;
  else s.tools.add(tool);
};

/**
 * The scopes a batch must re-evaluate, and the conversations whose filters its keys changed (they join the
 * filters after the checks read them; most batches of a running conversation repeat known keys, and those
 * filters are not written back). `traceExisted` says whether a trace was stored before this batch; `filterOf`
 * gives a conversation's stored key filter.
 */
export function batchChecks(
  t: TouchedCalls,
  traceExisted: (traceId: string) => boolean,
  filterOf: (conversationId: string) => KeyFilter,
): { checks: ScopeCheck[]; changed: Set<string> } {
  const order: Due[] = [];
  const traces = new Map<string, TraceDue>();
  const conversations = new Map<string, ConversationDue>();
  // Indexed loops over the columns: this runs for every call of every batch.
  for (let i = 0; i < t.length; i++) {
    const k0 = t.keyAt[i] as number;
    const k1 = t.keyAt[i + 1] as number;
    const e0 = t.endAt[i] as number;
    const e1 = t.endAt[i + 1] as number;
    if (k0 === k1 && e0 === e1) continue;
    const traceId = t.traceId[i] as string;
    const tool = t.tool[i] as string;
    let tr = traces.get(traceId);
    if (!tr) {
      // A trace keeps no filter: one stored before the batch may hold anything.
      const check: ScopeCheck = { scope: 'trace', key: traceId, tools: null };
      tr = {
        check,
        whole: false,
        tools: new Set(),
        existed: traceExisted(traceId),
        seen: new Map(),
      };
      traces.set(traceId, tr);
      order.push(tr);
    }
    for (let k = k0; k < k1; k++) {
      const id = idOf(t.hashA[k] as number, t.hashB[k] as number);
      const before = tr.seen.get(id) ?? 0;
      tr.seen.set(id, before + 1);
      if (tr.existed || before >= (t.prior[k] as number)) mark(tr, t.wholeScope[k] === 1, tool);
    }
    const conversationId = t.conversationId[i];
    if (!conversationId) continue;
    let v = conversations.get(conversationId);
    if (!v) {
      const check: ScopeCheck = { scope: 'conversation', key: conversationId, tools: null };
      v = {
        check,
        whole: false,
        tools: new Set(),
        filter: filterOf(conversationId),
        keys: new Map(),
        counted: false,
      };
      conversations.set(conversationId, v);
      order.push(v);
    }
    const at = t.startNs[i] as number;
    for (let e = e0; e < e1; e++)
      if (endRun(v.filter.streaks, t.ends[e] as number, at)) v.counted = true;
    for (let k = k0; k < k1; k++) {
      const id = idOf(t.hashA[k] as number, t.hashB[k] as number);
      let e = v.keys.get(id);
      if (!e) {
        e = counted(v.filter, t, k);
        v.keys.set(id, e);
      }
      // A run key counts its calls since the run last ended, where the conversation keeps that count. The key's
      // own hash and prior, not those of the first key that shared its number here: two keys that share one
      // only count together, and each still asks for a re-read at its own prior.
      const run = t.run[k] as number;
      const since =
        run === NO_RUN
          ? null
          : countRunKey(
              v.filter.streaks,
              run,
              streakId(t.hashA[k] as number, t.hashB[k] as number),
              at,
              e.seen === 0 && e.stored === 0,
            );
      if (since !== null) v.counted = true;
      const earlier = since === null ? e.seen + e.stored : since - 1;
      e.seen++;
      if (earlier >= (t.prior[k] as number)) mark(v, t.wholeScope[k] === 1, tool);
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
export function addKeys(filter: KeyFilter, t: TouchedCalls): boolean {
  const keys = new Map<number, Counted>();
  const n = t.keyAt[t.length] as number;
  for (let k = 0; k < n; k++) {
    const id = idOf(t.hashA[k] as number, t.hashB[k] as number);
    let e = keys.get(id);
    if (!e) {
      e = counted(filter, t, k);
      keys.set(id, e);
    }
    e.seen++;
  }
  return climb(filter, keys.values());
}
