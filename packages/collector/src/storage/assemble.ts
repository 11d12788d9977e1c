// The backend-neutral middle of a write: a batch's plan turned into the rows to insert, once its traces have
// row numbers and their stored span ids are known. Duplicates (exporter retries: same trace and span id) are
// dropped here. Client rows are paired with the server rows of the same call (pairing.ts), so statistics and
// the detectors count each call once (call-side.ts).

import { pairTrace, type StoredCall } from '../calls/pairing.js';
import { KIND_CLIENT, sideOfKind } from '../calls/sides.js';
import { type BatchTouch, newTouch, touchCall, touchSource } from './batch-touch.js';
import { packSpans } from './block-packing.js';
import type { RollupSide } from './call-side.js';
import { packedBlock, spanJsonOf } from './packed-plan.js';
import { accumulate, type Rollup, type RollupInput, withHours } from './rollups.js';
import { callAt, type PlannedCall, type WritePlan } from './write-plan.js';

/** A stored row's id and the columns its rollups read, for a stored client row this batch pairs. */
export type StoredCallRow = RollupInput & { id: number };

/** A block's row: its spans packed (block-packing.ts), on both backends. */
export type BlockRow = {
  seq: number;
  resourceId: number;
  spanIds: string;
  packed: Uint8Array;
};

export type Assembled = {
  inserted: number;
  duplicates: number;
  toolCalls: number;
  /** One row per trace and resource: the spans of the batch, in arrival order. */
  blocks: BlockRow[];
  calls: { seq: number; call: PlannedCall; paired: number }[];
  /** Stored client rows that this batch's server rows pair: set `paired` on them. */
  pairedIds: number[];
  /** (conversation, trace) pairs of the batch, each once. */
  conversationPairs: { conversationId: string; seq: number }[];
  rollups: Rollup[];
  touch: BatchTouch;
  /** Model-call rows of the batch's new spans. */
  modelCalls: ModelCallRow[];
};

/** A model call's row: its trace's row number, time and tokens. */
export type ModelCallRow = {
  seq: number;
  startNs: bigint;
  endNs: bigint;
  inputTokens: number | null;
  outputTokens: number | null;
};

export type AssembleContext = {
  /** The trace's row number (called in span order, so a backend may create rows as it goes). */
  seqOf(traceId: string, startNs: bigint): number;
  /** Span ids already stored for a trace; the set is added to as spans are accepted. */
  storedIds(seq: number, traceId: string): Set<string>;
  /** Row id of each of `plan.resources`, by index. */
  resourceIds: number[];
  /** The stored tool calls of a trace that existed before the batch (asked only when the batch has calls in it). */
  storedCalls(seq: number): StoredCall<StoredCallRow>[];
};

export function assemble(plan: WritePlan, ctx: AssembleContext): Assembled {
  const blocks = new Map<
    string,
    { seq: number; resourceId: number; ids: string[]; spans: number[]; group: number }
  >();
  const minutes = new Map<string, Rollup>();
  const pairs = new Map<string, { conversationId: string; seq: number }>();
  const calls: Assembled['calls'] = [];
  const existed = new Map<number, boolean>();
  const touch = newTouch();
  touch.contracts = plan.contracts;
  let inserted = 0;
  const n = plan.traceIds.length;
  /** The trace row of each new span, -1 for a duplicate. */
  const newSpanSeq = new Int32Array(n).fill(-1);
  const jsonOf = spanJsonOf(plan);
  for (let i = 0; i < n; i++) {
    const traceId = plan.traceIds[i] as string;
    const spanId = plan.spanIds[i] as string;
    const seq = ctx.seqOf(traceId, plan.startNs[i] as bigint);
    const stored = ctx.storedIds(seq, traceId);
    if (!existed.has(seq)) existed.set(seq, stored.size > 0);
    if (stored.has(spanId)) continue;
    stored.add(spanId);
    inserted++;
    newSpanSeq[i] = seq;
    const resourceId = ctx.resourceIds[plan.resource[i] as number] ?? 0;
    const key = `${seq}:${resourceId}`;
    let block = blocks.get(key);
    if (!block) {
      // The plan's group of its first span: the packed block is that group's if the span ids match.
      block = { seq, resourceId, ids: [], spans: [], group: plan.group?.[i] ?? -1 };
      blocks.set(key, block);
    }
    block.ids.push(spanId);
    block.spans.push(i);
    const c = plan.call[i] as number;
    if (c < 0) continue;
    const call = callAt(plan.calls, c);
    calls.push({ seq, call, paired: 0 });
    const conversationId = call.conversationId;
    if (conversationId) pairs.set(`${seq}\u0000${conversationId}`, { conversationId, seq });
  }
  const pairedIds: number[] = [];
  for (const [seq, rows] of groupBySeq(calls)) {
    const stored = existed.get(seq) ? ctx.storedCalls(seq) : [];
    // The common batch (a new trace, one side instrumented) has nothing to pair: skip the indexes.
    if (stored.length === 0 && !rows.some((r) => r.call.kind === KIND_CLIENT || r.call.proxy))
      continue;
    const views = rows.map(({ call }) => call);
    const { batchPaired, storedPaired } = pairTrace(views, stored);
    for (const i of batchPaired) (rows[i] as Assembled['calls'][number]).paired = 1;
    for (const s of storedPaired) {
      pairedIds.push(s.row.id);
      accumulate(minutes, s.row, pairedSide(s.kind));
    }
  }
  for (const c of calls) {
    const input = c.call;
    const kind = c.call.kind;
    accumulate(minutes, input, sideOfKind(kind));
    if (c.paired) accumulate(minutes, input, pairedSide(kind));
    // The detectors see each call once: the rows no other row of the call pairs (call-side.ts).
    if (!c.paired) touchCall(touch, c.call);
    touchSource(touch, c.call);
  }
  return {
    inserted,
    duplicates: n - inserted,
    toolCalls: calls.length,
    blocks: [...blocks.values()].map((b) => {
      const spanIds = b.ids.join(' ');
      // The block packed with the plan, unless a duplicate was dropped from it (its ids then differ).
      const prepacked =
        plan.packedIds?.[b.group] === spanIds ? packedBlock(plan, b.group) : undefined;
      return {
        seq: b.seq,
        resourceId: b.resourceId,
        spanIds,
        packed: prepacked ?? packSpans(b.spans.map(jsonOf)),
      };
    }),
    calls,
    pairedIds,
    conversationPairs: [...pairs.values()],
    rollups: withHours(minutes),
    touch,
    modelCalls: plan.modelCalls.flatMap((m) => {
      const seq = newSpanSeq[m.span] ?? -1;
      if (seq < 0) return [];
      const { startNs, endNs, inputTokens, outputTokens } = m;
      return [{ seq, startNs, endNs, inputTokens, outputTokens }];
    }),
  };
}

/** The rollup side a paired row is taken back out under: a client row's, or a proxy row's. */
const pairedSide = (kind: number): RollupSide => (kind === KIND_CLIENT ? 'paired' : 'proxied');

function groupBySeq(calls: Assembled['calls']): Map<number, Assembled['calls']> {
  const out = new Map<number, Assembled['calls']>();
  for (const c of calls) {
    const list = out.get(c.seq);
    if (list) list.push(c);
    else out.set(c.seq, [c]);
  }
  return out;
}
