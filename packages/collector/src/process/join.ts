// The process stage's join of one trace's parts of a logical call (calls/logical-join.ts has the rule), inside the
// batch's transaction: the batch's new rows against the trace's stored rows. The call is held by its earliest
// part that names a tool: a new row is stored with the joined call, or a stored row is extended with it; every
// other part is marked joined, and a `tasks/get` part whose call is not stored yet waits. Only parts in the same
// trace meet here (the trace's rows are locked for the batch); see docs/intake.md for what that leaves out.
import type { TracedCall } from '../calls/call-columns.js';
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

/** What the join decided for one trace; batch rows by their index among the trace's new rows. */
export type TraceJoin = {
  /** Each new row's CALL_PART (absent: whole). */
  part: Map<number, number>;
  /** New rows that hold a call joined from several parts, with that call. */
  holds: Map<number, MergedCall>;
  /** New rows holding a call a stored row counted before: its drift tallies were made then. */
  countedBefore: Set<number>;
  /** Stored rows that become parts of another row's call. */
  joined: Stored[];
  /** Stored rows holding a call that new parts extend, with the joined call. */
  extended: { stored: Stored; call: MergedCall }[];
};

const linkOfStored = (s: Stored): LinkView => ({
  spanId: s.spanId,
  parentSpanId: s.parentSpanId,
  tool: s.tool,
  inputHash: s.row.inputHash,
  kind: s.kind,
  proxy: s.proxy,
  startNs: s.row.startNs,
  logical: s.row.logical,
});

/** The join of a trace's new rows `rows` with its stored rows, or null when no new row is a part of anything. */
export function joinTrace(
  rows: readonly TracedCall[],
  stored: readonly Stored[],
): TraceJoin | null {
  if (!rows.some((r) => r.logical !== null)) return null;
  // Stored parts already joined are inside their holder's call; a stored row without facts links to nothing.
  const candidates = stored.filter(
    (s) => s.row.logical !== null && s.row.part !== CALL_PART.joined && s.row.outcome !== null,
  );
  const views: LinkView[] = [...rows, ...candidates.map(linkOfStored)];
  const n = rows.length;
  const out: TraceJoin = {
    part: new Map(),
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
      const s = (candidates[m - n] as Stored).row;
      return {
        startNs: s.startNs,
        durationMs: s.durationMs,
        logical: s.logical,
        outcome: s.outcome as NonNullable<StoredCallRow['outcome']>,
      };
    });
    const call = mergeParts(parts);
    const holder = group.holder;
    let storedWhole = false;
    for (const m of group.members) {
      if (m === holder) continue;
      if (m < n) out.part.set(m, CALL_PART.joined);
      else {
        const s = candidates[m - n] as Stored;
        if (s.row.part === CALL_PART.whole) storedWhole = true;
        out.joined.push(s);
      }
    }
    if (holder < n) {
      out.holds.set(holder, call);
      if (storedWhole) out.countedBefore.add(holder);
    } else out.extended.push({ stored: candidates[holder - n] as Stored, call });
  }
  return out;
}
