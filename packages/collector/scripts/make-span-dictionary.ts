// How dictionary v2 (storage/span-dictionary-v2.ts) was made, to make a later version the same way:
//   pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source scripts/make-span-dictionary.ts [--write]
// Needs zstd's development files (Debian: libzstd-dev) and gcc. Dictionary v1's content, whole, becomes a
// dictionary in zstd's own format (ZDICT_finalizeDictionary, finalize-dictionary.c): a header, then entropy
// tables, then the content. A zstd frame over a dictionary given as raw content carries its own Huffman and FSE
// tables, about 30 bytes that made one-span blocks 17 % larger than deflate's; over the tables of the
// dictionary it needs none (docs/decisions/0080). The tables' statistics come from the bench's traces (bench/
// spans.ts) cut into blocks of 1, 2, 4 and 8 spans, as the collector writes them, at the level it writes.
// Prints the dictionary's size and SHA-256; `--write` writes the module. Its ids and times are drawn anew on each
// run, so each run makes slightly different tables: the version that ships is frozen, never made again.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zstd from 'zstd-napi/binding.js';
import { benchTraces, spanBlocks } from '../bench/span-blocks.js';
import { BLOCK_LEVEL } from '../src/storage/block-zstd.js';
import { SPAN_DICTIONARY_V1 } from '../src/storage/span-dictionary.js';

/** Past zstd's reserved low range (1–32,767), in two bytes of a frame's header: 32,768 + the version. */
const DICT_ID = 32_770;
const TRACES = 3_000;

const here = dirname(fileURLToPath(import.meta.url));
const traces = benchTraces(TRACES);
const samples = [1, 2, 4, 8].flatMap((per) => spanBlocks(traces, per));

const dir = mkdtempSync(join(tmpdir(), 'span-dictionary-'));
let dictionary: Buffer;
try {
  const sizes = new BigUint64Array(samples.map((s) => BigInt(s.length)));
  writeFileSync(join(dir, 'content'), SPAN_DICTIONARY_V1);
  writeFileSync(join(dir, 'samples'), Buffer.concat(samples));
  writeFileSync(join(dir, 'sizes'), new Uint8Array(sizes.buffer));
  const tool = join(dir, 'finalize');
  execFileSync('gcc', ['-O2', join(here, 'finalize-dictionary.c'), '-o', tool, '-lzstd']);
  execFileSync(tool, [
    ...['content', 'samples', 'sizes', 'out'].map((f) => join(dir, f)),
    String(BLOCK_LEVEL),
    String(DICT_ID),
  ]);
  dictionary = readFileSync(join(dir, 'out'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (!dictionary.subarray(dictionary.length - SPAN_DICTIONARY_V1.length).equals(SPAN_DICTIONARY_V1))
  throw new Error('the dictionary does not end with dictionary v1 whole');
if (zstd.getDictIDFromDict(dictionary) !== DICT_ID)
  throw new Error('the dictionary has another id');
const sha = createHash('sha256').update(dictionary).digest('hex');
console.log(
  `${samples.length} samples; dictionary ${dictionary.length} bytes (${dictionary.length - SPAN_DICTIONARY_V1.length} before v1's content), SHA-256 ${sha}`,
);
if (process.argv.includes('--write'))
  writeFileSync(
    join(here, '../src/storage/span-dictionary-v2.ts'),
    `// The preset dictionary of codec-2 span blocks (docs/decisions/0080): dictionary v1's content, whole, at its end,
// after a header and entropy tables in zstd's dictionary format, made by scripts/make-span-dictionary.ts. FROZEN:
// blocks packed with it can only be read back with these exact bytes (block-packing.test.ts pins its hash); a
// better dictionary is a version 3 beside it, never an edit.
export const SPAN_DICTIONARY_V2 = Buffer.from(
  '${dictionary.toString('base64')}',
  'base64',
);

/** SHA-256 of SPAN_DICTIONARY_V2 (hex). */
export const SPAN_DICTIONARY_V2_SHA256 =
  '${sha}';
`,
  );
