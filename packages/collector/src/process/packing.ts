// Packing a write plan's blocks where the batch was decoded (decision 0011), so the writer thread stores bytes it
// did not have to compress, and the spans' JSON (about 600 bytes a span) is not copied to it at all, only the
// packed blocks (about 80). Each span's JSON is written as UTF-8 straight into its block (span-bytes.ts), no
// string made for it. The writer needs a span's JSON again only when it stores a block other than the packed one
// (a span was a duplicate); `spanJsonOf` then inflates the group and cuts the span out by the byte lengths kept
// here.
import type { NormalizedSpan } from '../otlp/model.js';
import { CODEC_BYTE, finishBlock, startBlock, unpackBlockBytes } from '../storage/block-packing.js';
import { ByteSink } from '../storage/byte-sink.js';
import { writeSpan } from '../storage/span-bytes.js';
import type { WriteBatch } from '../storage/write-batch.js';

/** Where a group's span ids are joined (hex, so ASCII): one string made per group, none per span. */
const ids = new ByteSink(4096);

/**
 * Packs the spans of each (trace, resource) of the plan, `spans` in its order, as the block the writer will most
 * likely store. The blocks are joined in one buffer: a typed array crosses to the writer thread with its whole
 * backing store, and small Buffers share node's 8 KiB pool.
 */
export function packGroups(plan: WriteBatch, spans: readonly NormalizedSpan[]): void {
  const n = plan.traceIds.length;
  const group = new Int32Array(n);
  const jsonBytes = new Uint32Array(n);
  // Each group's spans as a chain (first, next) in typed arrays: no array per group.
  const first: number[] = [];
  const last: number[] = [];
  const next = new Int32Array(n).fill(-1);
  // By resource, then trace: a batch's spans mostly share one resource, and no key string is made per span.
  const index = new Map<number, Map<string, number>>();
  for (let i = 0; i < n; i++) {
    const resource = plan.resource[i] as number;
    let traces = index.get(resource);
    if (!traces) {
      traces = new Map();
      index.set(resource, traces);
    }
    const traceId = plan.traceIds[i] as string;
    let g = traces.get(traceId);
    if (g === undefined) {
      g = first.push(i) - 1;
      last.push(i);
      traces.set(traceId, g);
    } else {
      next[last[g] as number] = i;
      last[g] = i;
    }
    group[i] = g;
  }
  const groups = first.length;
  const packedIds = new Array<string>(groups);
  const parts: Buffer[] = [];
  const ends = new Uint32Array(groups);
  let end = 0;
  for (let g = 0; g < groups; g++) {
    const sink = startBlock();
    ids.reset();
    for (let i = first[g] as number; i >= 0; i = next[i] as number) {
      if (ids.at > 0) {
        sink.byte(0x2c); // ,
        ids.byte(0x20); // space
      }
      ids.ascii(plan.spanIds[i] as string);
      const at = sink.at;
      writeSpan(sink, spans[i] as NormalizedSpan);
      jsonBytes[i] = sink.at - at;
    }
    packedIds[g] = ids.buf.toString('latin1', 0, ids.at);
    const compressed = finishBlock(sink);
    parts.push(CODEC_BYTE, compressed);
    end += CODEC_BYTE.length + compressed.length;
    ends[g] = end;
  }
  plan.group = group;
  plan.jsonBytes = jsonBytes;
  plan.packedIds = packedIds;
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
  const bytes = unpackBlockBytes(packedBlock(plan, g));
  if (bytes === null) return pieces;
  let at = 1; // after '['
  for (let i = 0; i < plan.traceIds.length; i++) {
    if (plan.group?.[i] !== g) continue;
    const length = plan.jsonBytes?.[i] ?? 0;
    pieces.set(i, bytes.toString('utf8', at, at + length));
    at += length + 1; // and the ',' or ']'
  }
  return pieces;
}
