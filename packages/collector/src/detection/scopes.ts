// Which scopes a batch must re-evaluate for loops. A loop can only be completed by a new call whose trigger key
// (detectors/loops: each detector names the keys under which a call may extend one of its loops) was seen in
// the same scope before: a trace that existed before the batch, a key repeated within the batch, or a
// conversation whose stored key filter (key-filter.ts) may hold the key. Nothing is kept between batches.
import { type ScopeCall, triggerKeys } from '../detectors/loops/index.js';
import { filterAdd, filterHas, type KeyFilter } from './key-filter.js';

export type ScopeKind = 'trace' | 'conversation';

/** A scope to re-read and re-evaluate: a trace id or a conversation id. */
export type ScopeCheck = { scope: ScopeKind; key: string };

/** A new call the batch counts (a server row, or a client row without one) with its trigger keys. */
export type TouchedCall = {
  traceId: string;
  conversationId: string | null;
  keys: readonly string[];
};

export function touchedCall(
  call: ScopeCall,
  traceId: string,
  conversationId: string | null,
): TouchedCall {
  return { traceId, conversationId, keys: triggerKeys(call) };
}

/**
 * The scopes to re-evaluate. `traceExisted` says whether a trace was stored before this batch;
 * `filterOf` gives a conversation's stored key filter.
 */
export function scopeChecks(
  calls: readonly TouchedCall[],
  traceExisted: (traceId: string) => boolean,
  filterOf: (conversationId: string) => KeyFilter,
): ScopeCheck[] {
  const scopes = new Map<string, { check: ScopeCheck; seen: Set<string>; due: boolean }>();
  const visit = (scope: ScopeKind, key: string, keys: readonly string[], due: boolean) => {
    const id = `${scope}\u0000${key}`;
    let s = scopes.get(id);
    if (!s) {
      s = { check: { scope, key }, seen: new Set(), due: false };
      scopes.set(id, s);
    }
    for (const k of keys) {
      if (s.seen.has(k)) s.due = true;
      else s.seen.add(k);
    }
    if (due) s.due = true;
  };
  for (const c of calls) {
    if (c.keys.length === 0) continue;
    visit('trace', c.traceId, c.keys, traceExisted(c.traceId));
    if (c.conversationId) {
      const filter = filterOf(c.conversationId);
      visit(
        'conversation',
        c.conversationId,
        c.keys,
        c.keys.some((k) => filterHas(filter, k)),
      );
    }
  }
  return [...scopes.values()].filter((s) => s.due).map((s) => s.check);
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
    for (const k of c.keys) if (filterAdd(filter, k)) changed.add(c.conversationId);
  }
  return changed;
}
