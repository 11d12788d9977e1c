// Finding the views of one call (sides.ts): a batch's client rows whose server row is known (in the batch or
// stored), and stored client rows that a server row of this batch pairs. A proxy row (`toolscope proxy`'s SERVER
// span) is both: the server row of the client above it, and a client row of the server row below it, so a call
// traced by an agent, the proxy and an instrumented server counts once, from the innermost server row. Only
// within one trace: both writers lock a batch's traces, so two batches carrying the sides of a call cannot miss
// each other.
import { KIND_CLIENT } from './sides.js';

/** The fields pairing reads from a row, new or stored. */
export type PairView = {
  spanId: string;
  parentSpanId: string | null;
  callId: string | null;
  tool: string;
  kind: number;
  /** The row is the proxy's view of the call. */
  proxy: boolean;
};

/** A stored row of a trace the batch touches; `paired` as stored. */
export type StoredCall<T> = PairView & { paired: boolean; row: T };

const callKey = (tool: string, callId: string) => `c\u0000${tool}\u0000${callId}`;
const spanKey = (spanId: string) => `s\u0000${spanId}`;

/**
 * The rule, in one place (the dashboard's conversation story merges rows with it too): a server row and a
 * client row of one trace record the same call when they share a key: the server's parent is the client
 * span, or both carry the same tool and call id.
 */
export function serverPairKeys(r: Omit<PairView, 'kind' | 'spanId' | 'proxy'>): string[] {
  const keys: string[] = [];
  if (r.parentSpanId) keys.push(spanKey(r.parentSpanId));
  if (r.callId) keys.push(callKey(r.tool, r.callId));
  return keys;
}

export function clientPairKeys(r: Omit<PairView, 'kind' | 'parentSpanId' | 'proxy'>): string[] {
  const keys = [spanKey(r.spanId)];
  if (r.callId) keys.push(callKey(r.tool, r.callId));
  return keys;
}

type TraceIndex = Set<string>;

/** Keys of the server rows among `rows`; with `inner`, of those that are no proxy's (what a proxy row pairs with). */
function serversOf(rows: readonly PairView[], inner: boolean): TraceIndex {
  const index: TraceIndex = new Set();
  for (const r of rows)
    if (r.kind !== KIND_CLIENT && !(inner && r.proxy))
      for (const k of serverPairKeys(r)) index.add(k);
  return index;
}

const pairsWith = (row: PairView, servers: TraceIndex) =>
  clientPairKeys(row).some((k) => servers.has(k));

/** Whether a row has a view below it among the servers: a client row any server row, a proxy row an inner one. */
function pairedBy(row: PairView, all: TraceIndex, inner: TraceIndex): boolean {
  if (row.kind === KIND_CLIENT) return pairsWith(row, all);
  return row.proxy && pairsWith(row, inner);
}

/**
 * For one trace: which of the batch's rows are paired (client rows with a server row, proxy rows with a server
 * row below them), by index, and which stored rows become paired by this batch's rows.
 */
export function pairTrace<T>(
  batch: readonly PairView[],
  stored: readonly StoredCall<T>[],
): { batchPaired: Set<number>; storedPaired: StoredCall<T>[] } {
  const batchAll = serversOf(batch, false);
  const batchInner = serversOf(batch, true);
  const all = new Set([...batchAll, ...serversOf(stored, false)]);
  const inner = new Set([...batchInner, ...serversOf(stored, true)]);
  const batchPaired = new Set<number>();
  batch.forEach((r, i) => {
    if (pairedBy(r, all, inner)) batchPaired.add(i);
  });
  // A stored row with its pair stored too was paired when the later of the two was written.
  const storedPaired = stored.filter((s) => !s.paired && pairedBy(s, batchAll, batchInner));
  return { batchPaired, storedPaired };
}
