// Several requests' batches as one write: the write queue commits what queued meanwhile in one transaction,
// and each request's spans were processed when it arrived (batch.ts), so their batches are joined here, with
// every index into resources, calls, spans and packed groups moved along.
import { concatColumns } from '../calls/call-columns.js';
import { type WriteBatch, writeBatch } from '../storage/write-batch.js';

/** One batch of `batches`' spans in their order (the batch itself when there is one). */
export function mergeBatches(batches: readonly WriteBatch[]): WriteBatch {
  if (batches.length === 1) return batches[0] as WriteBatch;
  const packed = batches.every((b) => b.packed !== undefined);
  if (!packed && batches.some((b) => b.packed !== undefined))
    throw new Error('a write mixes packed and unpacked batches');
  const n = batches.reduce((sum, b) => sum + b.traceIds.length, 0);
  const resources: string[] = [];
  const resourceIndex = new Map<string, number>();
  const out: WriteBatch = {
    resources,
    // Each joined by one concat: made at its length and packed, with no array grown value by value.
    traceIds: joined(batches.map((b) => b.traceIds)),
    spanIds: joined(batches.map((b) => b.spanIds)),
    startNs: new BigInt64Array(n),
    resource: new Uint32Array(n),
    json: joined(batches.map((b) => b.json)),
    call: new Int32Array(n),
    calls: concatColumns(batches.map((b) => b.calls)),
    contracts: batches.flatMap((b) => b.contracts),
    modelCalls: [],
  };
  const group = packed ? new Int32Array(n) : undefined;
  const jsonBytes = packed ? new Uint32Array(n) : undefined;
  const ends: number[] = [];
  let at = 0;
  let calls = 0;
  let groups = 0;
  let bytes = 0;
  for (const b of batches) {
    const resourceOf = b.resources.map((json) => {
      let r = resourceIndex.get(json);
      if (r === undefined) {
        r = resources.push(json) - 1;
        resourceIndex.set(json, r);
      }
      return r;
    });
    const count = b.traceIds.length;
    for (let i = 0; i < count; i++) {
      out.startNs[at + i] = b.startNs[i] as bigint;
      out.resource[at + i] = resourceOf[b.resource[i] as number] as number;
      const c = b.call[i] as number;
      out.call[at + i] = c < 0 ? -1 : c + calls;
      if (group && jsonBytes) {
        group[at + i] = (b.group?.[i] ?? 0) + groups;
        jsonBytes[at + i] = b.jsonBytes?.[i] ?? 0;
      }
    }
    for (const m of b.modelCalls) out.modelCalls.push({ ...m, span: m.span + at });
    if (b.packed) {
      for (const end of b.packed.ends) ends.push(end + bytes);
      bytes += b.packed.bytes.length;
      groups += b.packed.ends.length;
    }
    at += count;
    calls += b.calls.length;
  }
  if (group && jsonBytes) {
    out.group = group;
    out.jsonBytes = jsonBytes;
    out.packedIds = batches.flatMap((b) => b.packedIds ?? []);
    out.packed = {
      bytes: Buffer.concat(
        batches.map((b) => b.packed?.bytes ?? new Uint8Array(0)),
        bytes,
      ),
      ends: Uint32Array.from(ends),
    };
  }
  return writeBatch(out);
}

/** The arrays end to end, in their order. */
function joined<T>(arrays: readonly T[][]): T[] {
  return ([] as T[]).concat(...arrays);
}
