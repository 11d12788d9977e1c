// `pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source bench/layouts.bench.ts`: how small
// the span blocks of the bench:storage workload get under each candidate layout, and what each costs
// in CPU per span to write and to read back, beside today's layout (the JSON text of encodeSpan) in the same run.
// The spans go through the collector's own protobuf decoder and span codec, so the blocks are the ones a
// collector stores. Prints numbers; asserts nothing.
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants,
  deflateRawSync,
  inflateRawSync,
} from 'node:zlib';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { encodeSpan } from '../src/storage/span-codec.js';
import { makeSpans, protobufBatches } from './spans.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 4_000);
const DICTIONARY_BYTES = 32 * 1024;

const spans: NormalizedSpan[] = [];
for (const body of protobufBatches(makeSpans(TRACES), 512)) {
  const r = decodeProtobuf(body);
  if (r.ok) spans.push(...r.batch.spans);
}
// One block per trace and resource, as a batch holding whole traces is stored.
const byTrace = new Map<string, NormalizedSpan[]>();
for (const s of spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
const traces = [...byTrace.values()];
const jsonOf = (list: NormalizedSpan[]) => `[${list.map(encodeSpan).join(',')}]`;

/** Attribute keys as indexes into one table per block: the same 15 keys repeat in every span. */
function internedOf(list: NormalizedSpan[]): string {
  const keys: string[] = [];
  const index = new Map<string, number>();
  const id = (k: string) => {
    let i = index.get(k);
    if (i === undefined) {
      i = keys.length;
      keys.push(k);
      index.set(k, i);
    }
    return i;
  };
  const rows = list.map((s) => {
    const stored = JSON.parse(encodeSpan(s)) as Record<string, unknown>;
    const attrs = stored.a as Record<string, unknown>;
    stored.a = Object.entries(attrs).flatMap(([k, v]) => [id(k), v]);
    return stored;
  });
  return JSON.stringify({ k: keys, s: rows });
}

// The dictionary is trained on the first tenth of the traces and measured on the rest, as a deployment's would be
// built from its earlier blocks: the most recent sample last, where deflate finds matches cheapest.
const split = Math.floor(traces.length / 10);
const sample = (encode: (l: NormalizedSpan[]) => string) =>
  Buffer.from(traces.slice(0, split).map(encode).join('').slice(-DICTIONARY_BYTES));
const measured = traces.slice(split);
const measuredSpans = measured.reduce((n, t) => n + t.length, 0);

type Candidate = {
  name: string;
  encode: (l: NormalizedSpan[]) => string;
  pack: (text: Buffer) => Buffer;
  unpack: (b: Buffer) => Buffer;
};
const jsonDict = sample(jsonOf);
// A dictionary that knows only the shape: one trace's block (keys, structure, a few values), as a dictionary
// shipped with the collector would, instead of one trained on a deployment's own blocks.
const skeleton = Buffer.from(jsonOf(traces[0] ?? []));
const internDict = sample(internedOf);
const none = (b: Buffer) => b;
const candidates: Candidate[] = [
  { name: 'JSON text (today)', encode: jsonOf, pack: none, unpack: none },
  {
    name: 'JSON, deflate 1',
    encode: jsonOf,
    pack: (b) => deflateRawSync(b, { level: 1 }),
    unpack: (b) => inflateRawSync(b),
  },
  {
    name: 'JSON, deflate 6',
    encode: jsonOf,
    pack: (b) => deflateRawSync(b, { level: 6 }),
    unpack: (b) => inflateRawSync(b),
  },
  {
    name: 'JSON, deflate 1 + 32 KiB dictionary',
    encode: jsonOf,
    pack: (b) => deflateRawSync(b, { level: 1, dictionary: jsonDict }),
    unpack: (b) => inflateRawSync(b, { dictionary: jsonDict }),
  },
  {
    name: 'JSON, deflate 6 + 32 KiB dictionary',
    encode: jsonOf,
    pack: (b) => deflateRawSync(b, { level: 6, dictionary: jsonDict }),
    unpack: (b) => inflateRawSync(b, { dictionary: jsonDict }),
  },
  {
    name: `JSON, deflate 6 + one-trace dictionary (${skeleton.length} B)`,
    encode: jsonOf,
    pack: (b) => deflateRawSync(b, { level: 6, dictionary: skeleton }),
    unpack: (b) => inflateRawSync(b, { dictionary: skeleton }),
  },
  {
    name: 'JSON, brotli 4',
    encode: jsonOf,
    pack: (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
    unpack: (b) => brotliDecompressSync(b),
  },
  { name: 'interned keys', encode: internedOf, pack: none, unpack: none },
  {
    name: 'interned keys, deflate 6 + dictionary',
    encode: internedOf,
    pack: (b) => deflateRawSync(b, { level: 6, dictionary: internDict }),
    unpack: (b) => inflateRawSync(b, { dictionary: internDict }),
  },
];

const perSpanUs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1000 / measuredSpans;
console.log(
  `bench:layouts  ${measured.length} blocks (${measuredSpans} spans, ${(measuredSpans / measured.length).toFixed(1)} per block)`,
);
console.log(
  `  ${'layout'.padEnd(40)} ${'B/span'.padStart(7)} ${'× smaller'.padStart(10)} ${'encode µs'.padStart(10)} ${'pack µs'.padStart(8)} ${'unpack µs'.padStart(10)}`,
);
let baseline = 0;
// Three passes over every candidate; the last is printed (the first ones warm the JIT and zlib's buffers).
for (let pass = 0; pass < 3; pass++)
  for (const c of candidates) {
    let t = process.hrtime.bigint();
    const texts = measured.map((l) => Buffer.from(c.encode(l)));
    const encodeUs = perSpanUs(t);
    t = process.hrtime.bigint();
    const packed = texts.map(c.pack);
    const packUs = perSpanUs(t);
    t = process.hrtime.bigint();
    for (const p of packed) c.unpack(p);
    const unpackUs = perSpanUs(t);
    const bytes = packed.reduce((n, b) => n + b.length, 0) / measuredSpans;
    if (baseline === 0) baseline = bytes;
    if (pass < 2) continue;
    console.log(
      `  ${c.name.padEnd(40)} ${bytes.toFixed(0).padStart(7)} ${(baseline / bytes).toFixed(1).padStart(10)} ${encodeUs.toFixed(1).padStart(10)} ${packUs.toFixed(1).padStart(8)} ${unpackUs.toFixed(1).padStart(10)}`,
    );
  }
