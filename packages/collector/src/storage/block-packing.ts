// How a span block's JSON (span-codec.ts) is kept, on both backends (decision 0011): compressed with a preset
// dictionary, as bytes whose first one names the codec, in `span_blocks.packed`. Blocks are written as codec 2
// (zstd, decision 0080); codec-1 blocks (deflate) written before stay readable, and rows written before packing
// hold JSON text in `spans` and are read as they are.
import { inflateRawSync } from 'node:zlib';
import { unzstdBlock, zstdBlock } from './block-zstd.js';
import { ByteSink } from './byte-sink.js';
import { SPAN_DICTIONARY_V1 } from './span-dictionary.js';

/**
 * Codec 1: raw deflate, preset dictionary v1 (written at level 6 until decision 0038, at 3 until 0080). The
 * level is not part of the format: inflate needs only the dictionary.
 */
const CODEC_DEFLATE_V1 = 1;
/** Codec 2: one zstd frame over dictionary v2, v1's content with zstd's entropy tables (block-zstd.ts). */
const CODEC_ZSTD_V2 = 2;
/** A packed block's first byte: the codec it is written with. */
export const CODEC_BYTE = Buffer.from([CODEC_ZSTD_V2]);

/**
 * The block whose spans' JSON is `spans` (span-codec.ts), packed: the codec byte, then the compressed text of
 * `[${spans.join(',')}]`.
 */
export function packSpans(spans: readonly string[]): Buffer {
  const sink = startBlock();
  for (let i = 0; i < spans.length; i++) {
    if (i > 0) sink.byte(COMMA);
    sink.utf8(spans[i] as string);
  }
  return Buffer.concat([CODEC_BYTE, finishBlock(sink)]);
}

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]
/**
 * Where a block's array is written as UTF-8 before it is compressed, reused from block to block: the joined text
 * and its UTF-8 copy were a sixth of what the decoding thread allocated per span, and every allocation there is
 * scavenger work.
 */
const scratch = new ByteSink();

/**
 * The block's scratch, emptied and opened with the array's '[': the caller writes its spans' JSON there, with a
 * ',' between two, then packs it with finishBlock before it starts another.
 */
export function startBlock(): ByteSink {
  scratch.reset();
  scratch.byte(OPEN);
  return scratch;
}

/** The block written into `sink` since startBlock, closed and compressed (without its codec byte, CODEC_BYTE). */
export function finishBlock(sink: ByteSink): Buffer {
  sink.byte(CLOSE);
  // Synchronous: zstd has read the bytes before the scratch is written again.
  return zstdBlock(sink.bytes());
}

/**
 * A stored block's JSON text: a string as it is (written before packing), a packed BLOB (a Buffer, or the
 * Uint8Array a reader thread hands over) unpacked. An unknown codec or a damaged BLOB is null, and `onDamage`
 * hears of it.
 */
export function unpackBlock(stored: unknown, onDamage?: (what: string) => void): string | null {
  if (typeof stored === 'string') return stored;
  return unpackBlockBytes(stored, onDamage)?.toString('utf8') ?? null;
}

/** A packed block's JSON as UTF-8 bytes (unpackBlock without the text); null as there, text included. */
export function unpackBlockBytes(
  stored: unknown,
  onDamage?: (what: string) => void,
): Buffer | null {
  if (!(stored instanceof Uint8Array) || stored.length === 0) {
    onDamage?.('a span block is neither text nor a packed block');
    return null;
  }
  const codec = stored[0];
  if (codec !== CODEC_ZSTD_V2 && codec !== CODEC_DEFLATE_V1) {
    onDamage?.(`a span block has an unknown codec (${codec})`);
    return null;
  }
  try {
    return codec === CODEC_ZSTD_V2
      ? unzstdBlock(stored.subarray(1))
      : inflateRawSync(stored.subarray(1), { dictionary: SPAN_DICTIONARY_V1 });
  } catch {
    onDamage?.(`a packed span block (codec ${codec}) does not unpack`);
    return null;
  }
}
