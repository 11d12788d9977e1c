// How a span block's JSON (span-codec.ts) is kept, on both backends (decision 0011): deflated with a preset
// dictionary, as bytes whose first one names the codec, in `span_blocks.packed`. Rows written before hold JSON
// text in `spans` and are read as they are.
import { inflateRawSync } from 'node:zlib';
import { BlockDeflater } from './block-deflater.js';
import { ByteSink } from './byte-sink.js';
import { SPAN_DICTIONARY_V1 } from './span-dictionary.js';

/** Codec 1: raw deflate, preset dictionary v1 (written at level 6 until decision 0038, at 3 since). */
const CODEC_DEFLATE_V1 = 1;
/** A packed block's first byte: its codec. */
export const CODEC_BYTE = Buffer.from([CODEC_DEFLATE_V1]);
/**
 * The dictionary is the codec; the level and the output chunk are not (inflate needs neither). Level 3: 6.0
 * against 8.4 µs per span at level 6 on the bench's blocks, for 84 against 76 bytes (decision 0038). zlib's
 * default chunk (16 KiB) is allocated for each block and kept under the packed bytes, whose usual size is under
 * 1 KiB: 2 KiB measured 1.5–2.3 µs faster per 8-span block (of 50–55), with 21–40 % less GC time; it is
 * the chunk only where a block is deflated on its own (block-deflater.ts).
 */
const DEFLATE_OPTIONS = { level: 3, dictionary: SPAN_DICTIONARY_V1, chunkSize: 2048 };
/** This thread's deflater, made with its first block (a thread that only reads never makes one). */
let deflater: BlockDeflater | undefined;

/** This thread's deflater: whether it reuses one zlib state is for tests to see (decision 0071). */
export function blockDeflater(): BlockDeflater {
  deflater ??= new BlockDeflater(DEFLATE_OPTIONS);
  return deflater;
}

/**
 * The block whose spans' JSON is `spans` (span-codec.ts), packed: the codec byte, then the deflated text of
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
 * Where a block's array is written as UTF-8 before it is deflated, reused from block to block: the joined text
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

/** The block written into `sink` since startBlock, closed and deflated (without its codec byte, CODEC_BYTE). */
export function finishBlock(sink: ByteSink): Buffer {
  sink.byte(CLOSE);
  // Synchronous: zlib has read the bytes before the scratch is written again.
  return blockDeflater().deflate(sink.bytes());
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
  if (stored[0] !== CODEC_DEFLATE_V1) {
    onDamage?.(`a span block has an unknown codec (${stored[0]})`);
    return null;
  }
  try {
    return inflateRawSync(stored.subarray(1), { dictionary: SPAN_DICTIONARY_V1 });
  } catch {
    onDamage?.('a packed span block does not inflate');
    return null;
  }
}
