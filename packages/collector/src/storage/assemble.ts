// The backend-neutral middle of a write: a batch's plan turned into the rows to insert, once its traces have
// row numbers and their stored span ids are known. Duplicates (exporter retries: same trace and span id) are
// dropped here; client-side calls are stored but neither counted nor fed to the detectors, since the server's
// span of the same call is (counting both would double every call).
import { type BatchTouch, newTouch, touchCall } from './batch-touch.js';
import { accumulate, type Rollup, withHours } from './rollups.js';
import { KIND_CLIENT } from './tool-call.js';
import type { CallValues, WritePlan } from './write-plan.js';

export type BlockRow = { seq: number; resourceId: number; spanIds: string; spans: string };

export type Assembled = {
  inserted: number;
  duplicates: number;
  toolCalls: number;
  /** One row per trace and resource: the spans of the batch, in arrival order. */
  blocks: BlockRow[];
  calls: { seq: number; values: CallValues }[];
  /** (conversation, trace) pairs of the batch, each once. */
  conversationPairs: { conversationId: string; seq: number }[];
  rollups: Rollup[];
  touch: BatchTouch;
};

export type AssembleContext = {
  /** The trace's row number (called in span order, so a backend may create rows as it goes). */
  seqOf(traceId: string, startNs: bigint): number;
  /** Span ids already stored for a trace; the set is added to as spans are accepted. */
  storedIds(seq: number, traceId: string): Set<string>;
  /** Row id of each of `plan.resources`, by index. */
  resourceIds: number[];
};

export function assemble(plan: WritePlan, ctx: AssembleContext): Assembled {
  const blocks = new Map<
    string,
    { seq: number; resourceId: number; ids: string[]; json: string[] }
  >();
  const minutes = new Map<string, Rollup>();
  const pairs = new Map<string, { conversationId: string; seq: number }>();
  const calls: Assembled['calls'] = [];
  const touch = newTouch();
  let inserted = 0;
  const n = plan.traceIds.length;
  for (let i = 0; i < n; i++) {
    const traceId = plan.traceIds[i] as string;
    const spanId = plan.spanIds[i] as string;
    const seq = ctx.seqOf(traceId, plan.startNs[i] as bigint);
    const stored = ctx.storedIds(seq, traceId);
    if (stored.has(spanId)) continue;
    stored.add(spanId);
    inserted++;
    const resourceId = ctx.resourceIds[plan.resource[i] as number] ?? 0;
    const key = `${seq}:${resourceId}`;
    let block = blocks.get(key);
    if (!block) {
      block = { seq, resourceId, ids: [], json: [] };
      blocks.set(key, block);
    }
    block.ids.push(spanId);
    block.json.push(plan.json[i] as string);
    const c = plan.call[i] as number;
    if (c < 0) continue;
    const call = plan.calls[c] as CallValues;
    calls.push({ seq, values: call });
    const conversationId = call[20];
    if (conversationId) pairs.set(`${seq}\u0000${conversationId}`, { conversationId, seq });
    if (call[22] !== KIND_CLIENT) {
      accumulate(minutes, call);
      touchCall(touch, call);
    }
  }
  return {
    inserted,
    duplicates: n - inserted,
    toolCalls: calls.length,
    blocks: [...blocks.values()].map((b) => ({
      seq: b.seq,
      resourceId: b.resourceId,
      spanIds: b.ids.join(' '),
      spans: `[${b.json.join(',')}]`,
    })),
    calls,
    conversationPairs: [...pairs.values()],
    rollups: withHours(minutes),
    touch,
  };
}
