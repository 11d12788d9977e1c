// Finding the two views of one call (sides.ts): a batch's client rows whose server row is known (in the
// batch or stored), and stored client rows that a server row of this batch pairs. Only within one trace: both
// writers lock a batch's traces, so two batches carrying the two sides of a call cannot miss each other.
import { KIND_CLIENT } from './sides.js';

/** The fields pairing reads from a row, new or stored. */
export type PairView = {
  spanId: string;
  parentSpanId: string | null;
  callId: string | null;
  tool: string;
  kind: number;
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
export function serverPairKeys(r: Omit<PairView, 'kind' | 'spanId'>): string[] {
  const keys: string[] = [];
  if (r.parentSpanId) keys.push(spanKey(r.parentSpanId));
  if (r.callId) keys.push(callKey(r.tool, r.callId));
  return keys;
}

export function clientPairKeys(r: Omit<PairView, 'kind' | 'parentSpanId'>): string[] {
  const keys = [spanKey(r.spanId)];
  if (r.callId) keys.push(callKey(r.tool, r.callId));
  return keys;
}

type TraceIndex = Set<string>;

function serversOf(rows: readonly PairView[]): TraceIndex {
  const index: TraceIndex = new Set();
  for (const r of rows) if (r.kind !== KIND_CLIENT) for (const k of serverPairKeys(r)) index.add(k);
  return index;
}

const pairsWith = (client: PairView, servers: TraceIndex) =>
  clientPairKeys(client).some((k) => servers.has(k));

/**
 * For one trace: which of the batch's rows are paired client rows (by index), and which stored client rows
 * become paired by this batch's server rows.
 */
export function pairTrace<T>(
  batch: readonly PairView[],
  stored: readonly StoredCall<T>[],
): { batchPaired: Set<number>; storedPaired: StoredCall<T>[] } {
  const inBatch = serversOf(batch);
  const inStore = serversOf(stored);
  const batchPaired = new Set<number>();
  batch.forEach((r, i) => {
    if (r.kind === KIND_CLIENT && (pairsWith(r, inBatch) || pairsWith(r, inStore)))
      batchPaired.add(i);
  });
  // A stored client row with a stored server row was paired when the later of the two was written.
  const storedPaired = stored.filter(
    (s) => s.kind === KIND_CLIENT && !s.paired && pairsWith(s, inBatch),
  );
  return { batchPaired, storedPaired };
}
