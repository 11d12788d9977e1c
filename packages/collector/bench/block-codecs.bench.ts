// `pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source bench/block-codecs.bench.ts
// [--db store.db]`: what packing a span block costs and weighs as the collector writes it (codec 2, zstd over
// dictionary v2: storage/block-zstd.ts), beside codec 1 (raw deflate at level 3 over dictionary v1, what the
// collector wrote before decision 0080) of the same blocks in the same run: blocks of 1, 2, 4 and 8 spans of the
// bench's traces, whose kind made dictionary v2's tables (scripts/make-span-dictionary.ts), or with `--db` the
// blocks of a SQLite store, by size (`pnpm demo --db demo.db --exit` makes one of other spans). Codec 1 is timed
// with a fresh zlib state per block (deflateRawSync); the one reset state the collector used until 0080 was
// about a fifth faster (decision 0071). Prints numbers; asserts nothing.
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { CODEC_BYTE, unpackBlockBytes } from '../src/storage/block-packing.js';
import { zstdBlock } from '../src/storage/block-zstd.js';
import { SPAN_DICTIONARY_V1 } from '../src/storage/span-dictionary.js';
import { benchTraces, spanBlocks } from './span-blocks.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 3_000);
const ROUNDS = 5;
const { values: args } = parseArgs({ options: { db: { type: 'string' } } });

const traces = args.db ? [] : benchTraces(TRACES);

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

/** A store's blocks as their JSON, each as stored (packed with any codec, or text). */
function storedBlocks(path: string): Buffer[] {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT packed, spans FROM span_blocks').all() as {
      packed: Buffer | null;
      spans: string | null;
    }[];
    return rows.map((r) =>
      r.packed ? (unpackBlockBytes(r.packed) as Buffer) : Buffer.from(r.spans ?? '[]'),
    );
  } finally {
    db.close();
  }
}

const sets: [string, Buffer[]][] = [];
if (args.db) {
  const all = storedBlocks(args.db);
  sets.push(
    ['under 1 KB of JSON', all.filter((b) => b.length < 1024)],
    ['1-4 KB', all.filter((b) => b.length >= 1024 && b.length < 4096)],
    ['4 KB and over', all.filter((b) => b.length >= 4096)],
    ['all', all],
  );
} else
  for (const per of [1, 2, 4, 8]) sets.push([`${per} span(s) a block`, spanBlocks(traces, per)]);
console.log(
  `bench:block-codecs  node ${process.version}  ${args.db ? `the blocks of ${args.db}` : `${traces.length} traces of the bench`}`,
);
for (const [label, blocks] of sets) {
  if (blocks.length === 0) continue;
  const raw = blocks.reduce((a, b) => a + b.length, 0) / blocks.length;
  // The blocks read back whole before anything is timed.
  for (const b of blocks.slice(0, 50))
    if (!unpackBlockBytes(Buffer.concat([CODEC_BYTE, codec2(b)]))?.equals(b))
      throw new Error('a codec-2 block did not read back');
  const [us1, bytes1] = measure(blocks, codec1);
  const [us2, bytes2] = measure(blocks, codec2);
  console.log(
    `  ${label}: ${blocks.length} blocks of ${raw.toFixed(0)} B of JSON: codec 1 ${us1.toFixed(1)} µs ${bytes1.toFixed(0)} B, codec 2 ${us2.toFixed(1)} µs ${bytes2.toFixed(0)} B  (time ${(us2 / us1).toFixed(2)} ×, size ${(bytes2 / bytes1).toFixed(2)} ×)`,
  );
}
