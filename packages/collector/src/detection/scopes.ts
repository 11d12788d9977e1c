// Which scopes a batch must re-evaluate for loops, and how much of each to read. A loop can only be completed by
// a new call whose trigger key (detectors/loops: each detector names the keys under which a call may extend one
// of its loops) was seen in the same scope before: a trace that existed before the batch, a key repeated within
// the batch, or a conversation whose stored key filter (key-filter.ts) may hold the key. A key of a detector
// that one tool's calls decide asks for that tool's calls only; a cycle's key asks for the whole scope. Nothing
// is kept between batches.
import type { TriggerKey } from '../detectors/loops/index.js';
import { filterAdd, filterHas, type KeyFilter } from './key-filter.js';

export type ScopeKind = 'trace' | 'conversation';

/** A scope to re-read and re-evaluate: a trace id or a conversation id, and the tools to read (null: all). */
export type ScopeCheck = { scope: ScopeKind; key: string; tools: string[] | null };

/** A new call the batch counts (a server row, or a client row without one) with its trigger keys. */
export type TouchedCall = {
  traceId: string;
  conversationId: string | null;
  tool: string;
  keys: readonly TriggerKey[];
};

type Due = { check: ScopeCheck; seen: Map<string, number>; whole: boolean; tools: Set<string> };

/**
 * A key's rung in a conversation's filter: rung r stands for "seen at least r times". A key that needs more than
 * one earlier call (churn: churnMinCalls − 1) climbs one rung per call, so the filter counts it, roughly.
 */
const rung = (key: string, r: number) => (r === 1 ? key : `${key}\u0000#${r}`);

/** How many times the filter has seen a key, up to `prior` (the first missing rung stops the count). */
function storedCount(filter: KeyFilter, k: TriggerKey): number {
  let n = 0;
  while (n < k.prior && filterHas(filter, rung(k.key, n + 1))) n++;
  return n;
}

/**
 * The scopes to re-evaluate. `traceExisted` says whether a trace was stored before this batch; `filterOf`
 * gives a conversation's stored key filter.
 */
export function scopeChecks(
  calls: readonly TouchedCall[],
  traceExisted: (traceId: string) => boolean,
  filterOf: (conversationId: string) => KeyFilter,
): ScopeCheck[] {
  const scopes = new Map<string, Due>();
  const visit = (
    scope: ScopeKind,
    key: string,
    c: TouchedCall,
    stored: (k: TriggerKey) => number,
  ) => {
    const id = `${scope}\u0000${key}`;
    let s = scopes.get(id);
    if (!s) {
      s = { check: { scope, key, tools: null }, seen: new Map(), whole: false, tools: new Set() };
      scopes.set(id, s);
    }
    for (const k of c.keys) {
      const before = s.seen.get(k.key) ?? 0;
      s.seen.set(k.key, before + 1);
      if (before + stored(k) < k.prior) continue;
      if (k.wholeScope) s.whole = true;
      else s.tools.add(c.tool);
    }
  };
  for (const c of calls) {
    if (c.keys.length === 0) continue;
    // A trace keeps no filter: one stored before the batch may hold anything.
    const existed = traceExisted(c.traceId);
    visit('trace', c.traceId, c, (k) => (existed ? k.prior : 0));
    if (c.conversationId) {
      const filter = filterOf(c.conversationId);
      visit('conversation', c.conversationId, c, (k) => storedCount(filter, k));
    }
  }
  const out: ScopeCheck[] = [];
  for (const s of scopes.values()) {
    if (s.whole) out.push(s.check);
    else if (s.tools.size > 0) out.push({ ...s.check, tools: [...s.tools].sort() });
  }
  return out;
}

/**
 * Adds the batch's keys to their conversations' filters, after the checks read them; the ids of the filters
 * that changed (most batches of a running conversation repeat known keys, and those are not written back).
 */
export function addBatchKeys(
  calls: readonly TouchedCall[],
  filterOf: (conversationId: string) => KeyFilter,
): Set<string> {
  const changed = new Set<string>();
  for (const c of calls) {
    if (!c.conversationId) continue;
    const filter = filterOf(c.conversationId);
    for (const k of c.keys) {
      // One rung up per call: the next missing rung (all of them are there once the count reaches `prior`).
      const next = Math.min(k.prior, storedCount(filter, k) + 1);
      if (filterAdd(filter, rung(k.key, next))) changed.add(c.conversationId);
    }
  }
  return changed;
}
