// The writers' join of the parts of logical calls for the trace and conversation pages (decision 0054): the
// stored rows of facts of the pages' traces, each part's holder followed to the span that holds its call now (a
// holder may since have become a part of an earlier one, in yet another trace), as calls/stored-join.ts applies.
import type { SpanRef } from '../calls/logical-call.js';
import { factsKey, type StoredFacts } from '../calls/stored-join.js';
import { CALL_PART } from '../storage/batch-rows.js';
import type { StoredLogicalCall, TraceReader } from '../storage/contract.js';

/** Most holders followed from one part: a call re-held more often than this is named by a part on the way. */
const HOPS = 4;

/** The stored facts of the spans of `traceIds`, by factsKey. */
export async function storedJoin(
  reader: Pick<TraceReader, 'logicalCalls'>,
  traceIds: readonly string[],
): Promise<Map<string, StoredFacts>> {
  const rows = new Map<string, StoredLogicalCall>();
  const read = new Set<string>();
  const holderOf = (r: StoredLogicalCall): SpanRef | null =>
    r.part === CALL_PART.joined ? (r.call.logical?.joinedTo ?? null) : null;
  // The pages' traces, then the traces of holders not read yet, a hop at a time.
  let wantedTraces = [...new Set(traceIds)];
  for (let hop = 0; hop <= HOPS && wantedTraces.length > 0; hop++) {
    for (const id of wantedTraces) read.add(id);
    for (const r of await reader.logicalCalls(wantedTraces))
      rows.set(factsKey(r.call.traceId, r.call.spanId), r);
    const next = new Set<string>();
    for (const r of rows.values()) {
      const h = holderOf(r);
      if (h && !read.has(h.traceId)) next.add(h.traceId);
    }
    wantedTraces = [...next];
  }
  const out = new Map<string, StoredFacts>();
  const wanted = new Set(traceIds);
  for (const [key, r] of rows) {
    if (!wanted.has(r.call.traceId)) continue;
    let holder = holderOf(r);
    for (let hop = 0; holder && hop < HOPS; hop++) {
      const next = rows.get(factsKey(holder.traceId, holder.spanId));
      const further = next ? holderOf(next) : null;
      if (!further) break;
      holder = further;
    }
    out.set(key, { joined: r.part === CALL_PART.joined, holder, call: r.call });
  }
  return out;
}
