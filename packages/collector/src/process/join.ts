// The process stage's join of the parts of logical calls (calls/logical-join.ts has the rule), inside the batch's
// transaction: the batch's new rows against the stored rows they may join, of their own traces and of any trace
// their links name (decision 0054: a client without trace context makes each leg and poll a trace of its own).
// The call is held by its earliest part that names a tool: a new row is stored with the joined call, or a stored
// row is extended with it; every other part is marked joined and names the holder, and a `tasks/get` part whose
// call is not stored yet waits. The writer has locked the parts' link hashes (PostgreSQL), so two collectors
// cannot both miss each other's part of one call.
import type { TracedCall } from '../calls/call-columns.js';
import type { SpanRef } from '../calls/logical-call.js';
import {
  groupParts,
  type LinkView,
  type MergedCall,
  type MergePart,
  mergeParts,
} from '../calls/logical-join.js';
import type { StoredCall } from '../calls/pairing.js';
import { CALL_PART, type StoredCallRow } from '../storage/batch-rows.js';

type Stored = StoredCall<StoredCallRow>;

/** A stored row the join may take in, with its trace's id. */
export type StoredPart = { traceId: string; stored: Stored };

/** What the join decided; new rows by their index among the rows it was given. */
export type BatchJoin = {
  /** Each new row's CALL_PART (absent: whole). */
  part: Map<number, number>;
  /** New rows joined into another row's call, with the span holding it. */
  joinedTo: Map<number, SpanRef>;
  /** New rows that hold a call joined from several parts, with that call. */
  holds: Map<number, MergedCall>;
  /** New rows holding a call a stored row counted before: its drift tallies were made then. */
  countedBefore: Set<number>;
  /** Stored rows that become parts of another row's call, with the span holding it. */
  joined: { stored: Stored; holder: SpanRef }[];
  /** Stored rows holding a call that new parts extend, with the joined call and the row's trace. */
  extended: { stored: Stored; traceId: string; call: MergedCall }[];
};

const linkOfStored = ({ traceId, stored: s }: StoredPart): LinkView => ({
  traceId,
  spanId: s.spanId,
  parentSpanId: s.parentSpanId,
  tool: s.tool,
  inputHash: s.row.inputHash,
  kind: s.kind,
  proxy: s.proxy,
  startNs: s.row.startNs,
  logical: s.row.logical,
});

/**
 * The join of new rows `rows` with stored rows `stored` (each row once), or null when no new row is a part of
 * anything.
 */
export function joinParts(
  rows: readonly TracedCall[],
  stored: readonly StoredPart[],
): BatchJoin | null {
  if (!rows.some((r) => r.logical !== null)) return null;
  // Stored parts already joined are inside their holder's call; a stored row without facts links to nothing.
  const candidates = stored.filter(
    ({ stored: s }) =>
      s.row.logical !== null && s.row.part !== CALL_PART.joined && s.row.outcome !== null,
  );
  const views: LinkView[] = [...rows, ...candidates.map(linkOfStored)];
  const n = rows.length;
  const out: BatchJoin = {
    part: new Map(),
    joinedTo: new Map(),
    holds: new Map(),
    countedBefore: new Set(),
    joined: [],
    extended: [],
  };
  for (const group of groupParts(views)) {
    const fresh = group.members.filter((m) => m < n);
    // A group of stored rows only was joined when the later of them was written.
    if (fresh.length === 0) continue;
    if (group.holder === null) {
      for (const m of fresh) out.part.set(m, CALL_PART.waiting);
      continue;
    }
    const parts: MergePart[] = group.members.map((m) => {
      if (m < n) {
        const c = rows[m] as TracedCall;
        return { startNs: c.startNs, durationMs: c.durationMs, logical: c.logical, outcome: c };
      }
      const s = (candidates[m - n] as StoredPart).stored.row;
      return {
        startNs: s.startNs,
        durationMs: s.durationMs,
        logical: s.logical,
        outcome: s.outcome as NonNullable<StoredCallRow['outcome']>,
      };
    });
    const call = mergeParts(parts);
    const holder = group.holder;
    const h = views[holder] as LinkView;
    const ref: SpanRef = { traceId: h.traceId, spanId: h.spanId };
    let storedWhole = false;
    for (const m of group.members) {
      if (m === holder) continue;
      if (m < n) {
        out.part.set(m, CALL_PART.joined);
        out.joinedTo.set(m, ref);
      } else {
        const s = (candidates[m - n] as StoredPart).stored;
        if (s.row.part === CALL_PART.whole) storedWhole = true;
        out.joined.push({ stored: s, holder: ref });
      }
    }
    if (holder < n) {
      out.holds.set(holder, call);
      if (storedWhole) out.countedBefore.add(holder);
    } else {
      const c = candidates[holder - n] as StoredPart;
      out.extended.push({ stored: c.stored, traceId: c.traceId, call });
    }
  }
  return out;
}
