// The bench's traces (spans.ts) as the span blocks the collector compresses: decoded by its own protobuf decoder,
// written by its own span writer into blocks of a given number of spans of one trace. For bench:block-codecs and
// the script that made dictionary v2's tables (scripts/make-span-dictionary.ts).
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { startBlock } from '../src/storage/block-packing.js';
import { writeSpan } from '../src/storage/span-bytes.js';
import { makeSpans, protobufBatches } from './spans.js';

/** The spans of `traces` bench traces, decoded, by trace. */
export function benchTraces(traces: number): NormalizedSpan[][] {
  const byTrace = new Map<string, NormalizedSpan[]>();
  for (const body of protobufBatches(makeSpans(traces), 512)) {
    const r = decodeProtobuf(body);
    if (!r.ok) throw new Error(r.message);
    for (const s of r.batch.spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
  }
  return [...byTrace.values()];
}

/** Each trace's spans in blocks of `per` (the last one shorter), as the UTF-8 JSON the collector compresses. */
export function spanBlocks(traces: NormalizedSpan[][], per: number): Buffer[] {
  const out: Buffer[] = [];
  for (const spans of traces)
    for (let i = 0; i < spans.length; i += per) {
      const sink = startBlock();
      spans.slice(i, i + per).forEach((s, j) => {
        if (j > 0) sink.byte(0x2c);
        writeSpan(sink, s);
      });
      sink.byte(0x5d);
      out.push(Buffer.from(sink.bytes()));
    }
  return out;
}
