// `pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source bench/block-codecs.bench.ts`: what
// packing a span block costs and weighs as the collector writes it (codec 2, zstd: storage/block-packing.ts),
// beside codec 1 (raw deflate at level 3 over the same dictionary, the bytes the collector wrote before decision
// 0080) of the same blocks in the same run, for blocks of 1, 2, 4 and 8 spans of the bench's traces. Codec 1 is
// timed with a fresh zlib state per block (deflateRawSync); the one reset state the collector used until 0080
// was about a fifth faster (decision 0071). Prints numbers; asserts nothing.
import { deflateRawSync } from 'node:zlib';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { startBlock, unpackBlockBytes } from '../src/storage/block-packing.js';
import { zstdBlock } from '../src/storage/block-zstd.js';
import { writeSpan } from '../src/storage/span-bytes.js';
import { SPAN_DICTIONARY_V1 } from '../src/storage/span-dictionary.js';
import { makeSpans, protobufBatches } from './spans.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 3_000);
const ROUNDS = 5;

const byTrace = new Map<string, NormalizedSpan[]>();
for (const body of protobufBatches(makeSpans(TRACES), 512)) {
  const r = decodeProtobuf(body);
  if (!r.ok) throw new Error(r.message);
  for (const s of r.batch.spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
}

/** The blocks of `per` spans each, as the UTF-8 JSON the collector compresses. */
function blocksOf(per: number): Buffer[] {
  const out: Buffer[] = [];
  for (const spans of byTrace.values())
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

/** µs per block (the fastest of ROUNDS passes) and bytes per block. */
function measure(blocks: Buffer[], pack: (b: Buffer) => Uint8Array): [number, number] {
  let best = Number.POSITIVE_INFINITY;
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    bytes = 0;
    const t = process.hrtime.bigint();
    for (const b of blocks) bytes += pack(b).length;
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1000 / blocks.length);
  }
  return [best, bytes / blocks.length];
}

/** What finishBlock does once the block's ']' is written. */
const codec2 = zstdBlock;
const codec1 = (b: Buffer) =>
  deflateRawSync(b, { level: 3, dictionary: SPAN_DICTIONARY_V1, chunkSize: 2048 });

console.log(`bench:block-codecs  node ${process.version}  ${byTrace.size} traces of the bench`);
for (const per of [1, 2, 4, 8]) {
  const blocks = blocksOf(per);
  const raw = blocks.reduce((a, b) => a + b.length, 0) / blocks.length;
  // The blocks read back whole before anything is timed.
  for (const b of blocks.slice(0, 50))
    if (!unpackBlockBytes(Buffer.concat([Buffer.from([2]), codec2(b)]))?.equals(b))
      throw new Error('a codec-2 block did not read back');
  const [us1, bytes1] = measure(blocks, codec1);
  const [us2, bytes2] = measure(blocks, codec2);
  console.log(
    `  ${per} span(s) a block, ${raw.toFixed(0)} B of JSON: codec 1 ${us1.toFixed(1)} µs ${bytes1.toFixed(0)} B, codec 2 ${us2.toFixed(1)} µs ${bytes2.toFixed(0)} B  (time ${(us2 / us1).toFixed(2)} ×, size ${(bytes2 / bytes1).toFixed(2)} ×)`,
  );
}
