// Packing a write plan's blocks where the batch was decoded (decision 0011), so the writer thread stores bytes it
// did not have to compress, and the spans' JSON (about 600 bytes a span) is not copied to it at all, only the
// packed blocks (about 80). The writer needs a span's JSON again only when it stores a block other than the
// packed one (a span was a duplicate); `spanJsonOf` then inflates the group and cuts the span out by the
// lengths kept here.
import { packSpanParts, unpackBlock } from '../storage/block-packing.js';
import type { WriteBatch } from '../storage/write-batch.js';

/**
 * Packs the spans of each (trace, resource) of the plan as the block the writer will most likely store. The blocks
 * are joined in one buffer: a typed array crosses to the writer thread with its whole backing store, and small
 * Buffers share node's 8 KiB pool.
 */
export function packGroups(plan: WriteBatch): void {
  const n = plan.traceIds.length;
  const group = new Int32Array(n);
  const jsonLength = new Uint32Array(n);
  const members: number[][] = [];
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const key = `${plan.traceIds[i]}\u0000${plan.resource[i]}`;
    let g = index.get(key);
    if (g === undefined) {
      g = members.push([]) - 1;
      index.set(key, g);
    }
    (members[g] as number[]).push(i);
    group[i] = g;
    jsonLength[i] = (plan.json[i] as string).length;
  }
  plan.group = group;
  plan.jsonLength = jsonLength;
  plan.packedIds = members.map((m) => m.map((i) => plan.spanIds[i]).join(' '));
  const parts: Buffer[] = [];
  const ends = new Uint32Array(members.length);
  let end = 0;
  members.forEach((m, g) => {
    for (const part of packSpanParts(m.map((i) => plan.json[i] as string))) {
      parts.push(part);
      end += part.length;
    }
    ends[g] = end;
  });
  plan.packed = { bytes: Buffer.concat(parts, end), ends };
  plan.json = [];
}

/** The packed block of group `g`, or undefined when the plan was not packed. */
export function packedBlock(plan: WriteBatch, g: number): Uint8Array | undefined {
  const ends = plan.packed?.ends;
  if (!ends || g < 0 || g >= ends.length) return undefined;
  return plan.packed?.bytes.subarray(g === 0 ? 0 : ends[g - 1], ends[g]);
}

/** A span's JSON by its index in the plan: as planned, or cut out of its packed group. */
export function spanJsonOf(plan: WriteBatch): (i: number) => string {
  const groups = new Map<number, Map<number, string>>();
  return (i) => {
    const planned = plan.json[i];
    if (planned !== undefined) return planned;
    const g = plan.group?.[i] ?? -1;
    let pieces = groups.get(g);
    if (!pieces) {
      pieces = unpackGroup(plan, g);
      groups.set(g, pieces);
    }
    const json = pieces.get(i);
    // A plan is made and read by this module alone: a missing piece is a bug, not bad input.
    if (json === undefined) throw new Error(`span ${i} of a packed plan has no JSON`);
    return json;
  };
}

function unpackGroup(plan: WriteBatch, g: number): Map<number, string> {
  const pieces = new Map<number, string>();
  const text = unpackBlock(packedBlock(plan, g));
  if (text === null) return pieces;
  let at = 1; // after '['
  for (let i = 0; i < plan.traceIds.length; i++) {
    if (plan.group?.[i] !== g) continue;
    const length = plan.jsonLength?.[i] ?? 0;
    pieces.set(i, text.slice(at, at + length));
    at += length + 1; // and the ',' or ']'
  }
  return pieces;
}
