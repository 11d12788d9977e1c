// The process stage's second half, run by the writer inside a batch's transaction once its traces have row
// numbers and their stored span ids are known: duplicates (exporter retries: same trace and span id) dropped,
// client rows paired with the server rows of the same call (calls/pairing.ts), so statistics and the detectors
// count each call once, the parts of one logical call joined into one row (join.ts), and the rows, rollups and
// tallies the backend stores made. Backend-neutral.

import type { RollupInput, RollupSide } from '../aggregation/rollups.js';
import { MinuteRollups, withHours } from '../aggregation/rollups.js';
import { newTallies, tallyCall, tallySource } from '../aggregation/tallies.js';
import { callAt } from '../calls/call-columns.js';
import { pairTrace, type StoredCall } from '../calls/pairing.js';
import { sequenceCallOf, storedSequenceCall } from '../calls/sequence.js';
import { KIND_CLIENT, sideOfKind } from '../calls/sides.js';
import {
  type BatchRows,
  CALL_PART,
  type StoredCallRow,
  type StoredState,
} from '../storage/batch-rows.js';
import { packSpans } from '../storage/block-packing.js';
import type { WriteBatch } from '../storage/write-batch.js';
import { type BatchJoin, joinParts, type StoredPart } from './join.js';
import { packedBlock, spanJsonOf } from './packing.js';

type NewRow = BatchRows['calls'][number];
type NewBlock = {
  seq: number;
  resourceId: number;
  ids: string[];
  spans: number[];
  group: number;
  next: NewBlock | null;
};
type Stored = StoredCall<StoredCallRow>;

export function batchRows(batch: WriteBatch, stored: StoredState): BatchRows {
  // A trace's blocks of the batch (one per resource and packed group; nearly always one), by trace row, each
  // linking the trace's one made before it: a key string per span to find them was a tenth of what this
  // function allocated.
  const blocks = new Map<number, NewBlock>();
  const blockOrder: NewBlock[] = [];
  const minutes = new MinuteRollups();
  const pairs = new Map<string, { conversationId: string; seq: number }>();
  const calls: BatchRows['calls'] = [];
  const existed = new Map<number, boolean>();
  const tallies = newTallies();
  const counted: BatchRows['counted'] = [];
  let inserted = 0;
  const n = batch.traceIds.length;
  /** The trace row of each new span, -1 for a duplicate. */
  const newSpanSeq = new Int32Array(n).fill(-1);
  const jsonOf = spanJsonOf(batch);
  // A trace's spans come together: its row and stored ids are asked once per run of them (seqOf gives a trace
  // the same row all batch long), and a call's (trace, conversation) pair is looked up once per run too.
  let lastTraceId: string | undefined;
  let seq = -1;
  let ids: Set<string> = new Set();
  let lastPair: string | null = null;
  /** Whether any call may pair: one of a trace stored before, or a client or proxy row (else all skip it). */
  let pairable = false;
  for (let i = 0; i < n; i++) {
    const traceId = batch.traceIds[i] as string;
    const spanId = batch.spanIds[i] as string;
    if (traceId !== lastTraceId) {
      lastTraceId = traceId;
      lastPair = null;
      seq = stored.seqOf(traceId, batch.startNs[i] as bigint);
      ids = stored.storedIds(seq, traceId);
      if (!existed.has(seq)) existed.set(seq, ids.size > 0);
      if (ids.size > 0) pairable = true;
    }
    if (ids.has(spanId)) continue;
    ids.add(spanId);
    inserted++;
    newSpanSeq[i] = seq;
    const resourceId = stored.resourceIds[batch.resource[i] as number] ?? 0;
    // A batch of several requests may carry a trace's spans in several packed groups: a block each.
    const group = batch.group?.[i] ?? -1;
    let block: NewBlock | null = blocks.get(seq) ?? null;
    while (block && (block.resourceId !== resourceId || block.group !== group)) block = block.next;
    if (!block) {
      block = { seq, resourceId, ids: [], spans: [], group, next: blocks.get(seq) ?? null };
      blocks.set(seq, block);
      blockOrder.push(block);
    }
    block.ids.push(spanId);
    block.spans.push(i);
    const c = batch.call[i] as number;
    if (c < 0) continue;
    const call = callAt(batch.calls, c);
    calls.push({ seq, call, paired: 0, part: CALL_PART.whole });
    if (call.kind === KIND_CLIENT || call.proxy) pairable = true;
    const conversationId = call.conversationId;
    if (conversationId && conversationId !== lastPair) {
      lastPair = conversationId;
      const key = `${seq}\u0000${conversationId}`;
      if (!pairs.has(key)) pairs.set(key, { conversationId, seq });
    }
  }
  const pairedIds: number[] = [];
  const joins: Joins = { joined: [], extended: [], now: new Map(), countedBefore: new Set() };
  // A trace's stored calls, read once for the join and pairing.
  const storedOf = new Map<number, Stored[]>();
  const storedCalls = (seq: number) => {
    let list = storedOf.get(seq);
    if (!list) {
      list = existed.get(seq) ? stored.storedCalls(seq) : [];
      storedOf.set(seq, list);
    }
    return list;
  };
  // Few batches have a part of a logical call: the others skip the join.
  const parts = calls.filter((c) => c.call.logical !== null);
  if (parts.length > 0) {
    const join = joinParts(
      parts.map((r) => r.call),
      candidatesOf(parts, storedCalls, stored),
    );
    if (join) applyJoin(join, parts, minutes, counted, joins);
  }
  // The common batch (new traces, one side instrumented) has nothing to pair: it skips the grouping too.
  for (const [seq, rows] of pairable ? groupBySeq(calls) : []) {
    const storedRows = storedCalls(seq);
    // A trace of the batch with nothing to pair skips the indexes.
    if (storedRows.length === 0 && !rows.some((r) => r.call.kind === KIND_CLIENT || r.call.proxy))
      continue;
    const views = rows.map(({ call }) => call);
    const { batchPaired, storedPaired } = pairTrace(views, storedRows);
    for (const i of batchPaired) (rows[i] as NewRow).paired = 1;
    for (const s of storedPaired) {
      // A part of another row's call counts nowhere, paired or not; a call its parts extended counts as it is now.
      const now = joins.now.get(s.row.id);
      if (now === null || (now === undefined && s.row.part !== CALL_PART.whole)) continue;
      pairedIds.push(s.row.id);
      minutes.add(now ?? s.row, pairedSide(s.kind));
    }
  }
  // Indexed: this runs once per batch, unoptimized, where for-of allocated a result per call.
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i] as NewRow;
    const { call, paired } = c;
    // A part counts in its call's row, and a `tasks/get` part waiting for its call nowhere yet.
    if (c.part !== CALL_PART.whole) continue;
    minutes.add(call, sideOfKind(call.kind));
    if (paired) minutes.add(call, pairedSide(call.kind));
    // The detectors see each call once: the rows no other row of the call pairs (storage/call-side.ts).
    if (!paired) {
      // A call whose earlier part was counted was tallied then.
      if (!joins.countedBefore.has(c)) tallyCall(tallies, call);
      counted.push({ call: sequenceCallOf(call), conversationId: call.conversationId });
    }
    tallySource(tallies, call);
  }
  return {
    inserted,
    duplicates: n - inserted,
    toolCalls: calls.length,
    blocks: blockOrder.map((b) => {
      const spanIds = b.ids.join(' ');
      // The block packed with the batch, unless a duplicate was dropped from it (its ids then differ).
      const prepacked =
        batch.packedIds?.[b.group] === spanIds ? packedBlock(batch, b.group) : undefined;
      return {
        seq: b.seq,
        resourceId: b.resourceId,
        spanIds,
        packed: prepacked ?? packSpans(b.spans.map(jsonOf)),
      };
    }),
    calls,
    pairedIds,
    joined: joins.joined,
    extended: joins.extended,
    conversationPairs: [...pairs.values()],
    rollups: withHours(minutes),
    tallies,
    contracts: batch.contracts,
    counted,
    modelCalls: batch.modelCalls.flatMap((m) => {
      const seq = newSpanSeq[m.span] ?? -1;
      if (seq < 0) return [];
      const { startNs, endNs, inputTokens, outputTokens } = m;
      return [{ seq, startNs, endNs, inputTokens, outputTokens }];
    }),
  };
}

/** What the joins of a batch's traces decided, gathered for the writer. */
type Joins = {
  joined: BatchRows['joined'];
  extended: BatchRows['extended'];
  /** Stored rows the batch changed: null for a part now joined, else the call an extended row now holds. */
  now: Map<number, RollupInput | null>;
  countedBefore: Set<NewRow>;
};

/**
 * A trace's join applied: new rows get their part and, for a row holding a joined call, that call; stored rows
 * that became parts are taken out of the rollups they counted in (side `joined`), and a stored row holding an
 * extended call has its old values taken out and its new ones counted. A proxy row already paired with the
 * server's row below counts nowhere, before and after. An extended call is re-read by loop detection.
 */
function applyJoin(
  join: BatchJoin,
  rows: NewRow[],
  minutes: MinuteRollups,
  counted: BatchRows['counted'],
  joins: Joins,
): void {
  for (const [i, part] of join.part) (rows[i] as NewRow).part = part;
  for (const [i, holder] of join.joinedTo) {
    const row = rows[i] as NewRow;
    const logical = row.call.logical;
    if (logical) row.call = { ...row.call, logical: { ...logical, joinedTo: holder } };
  }
  for (const [i, merged] of join.holds) {
    const row = rows[i] as NewRow;
    const { startNs, durationMs, logical, outcome } = merged;
    row.call = { ...row.call, ...outcome, startNs, durationMs, logical };
    if (join.countedBefore.has(i)) joins.countedBefore.add(row);
  }
  const counts = (s: { proxy: boolean; paired: boolean; row: StoredCallRow }) =>
    s.row.part === CALL_PART.whole && !(s.proxy && s.paired);
  for (const { stored: s, holder } of join.joined) {
    const logical = s.row.logical;
    if (logical) joins.joined.push({ id: s.row.id, logical: { ...logical, joinedTo: holder } });
    joins.now.set(s.row.id, null);
    if (counts(s)) minutes.add(s.row, 'joined');
  }
  for (const { stored: s, traceId, call } of join.extended) {
    joins.extended.push({ id: s.row.id, call });
    const now: RollupInput = {
      ...s.row,
      ...call.outcome,
      startNs: call.startNs,
      durationMs: call.durationMs,
    };
    joins.now.set(s.row.id, now);
    if (counts(s)) {
      minutes.add(s.row, 'joined');
      minutes.add(now, sideOfKind(s.kind));
    }
    counted.push({ call: storedSequenceCall(traceId, s, call), conversationId: null });
  }
}

/**
 * The stored rows the batch's parts may join: the stored calls of their own traces, and the rows of any trace the
 * writer found by their links (StoredState.linkedCalls), each once.
 */
function candidatesOf(
  parts: readonly NewRow[],
  storedCalls: (seq: number) => Stored[],
  stored: StoredState,
): StoredPart[] {
  const out = new Map<number, StoredPart>();
  for (const { seq, call } of parts)
    for (const s of storedCalls(seq))
      if (s.row.logical !== null) out.set(s.row.id, { traceId: call.traceId, stored: s });
  for (const { traceId, call } of stored.linkedCalls())
    if (!out.has(call.row.id)) out.set(call.row.id, { traceId, stored: call });
  return [...out.values()];
}

/** The rollup side a paired row is taken back out under: a client row's, or a proxy row's. */
const pairedSide = (kind: number): RollupSide => (kind === KIND_CLIENT ? 'paired' : 'proxied');

function groupBySeq(calls: BatchRows['calls']): Map<number, BatchRows['calls']> {
  const out = new Map<number, BatchRows['calls']>();
  for (const c of calls) {
    const list = out.get(c.seq);
    if (list) list.push(c);
    else out.set(c.seq, [c]);
  }
  return out;
}
