// How a span block's JSON (span-codec.ts) is kept, on both backends (decision 0011): deflated with a preset
// dictionary, as bytes whose first one names the codec, in `span_blocks.packed`. Rows written before hold JSON
// text in `spans` and are read as they are.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { SPAN_DICTIONARY_V1 } from './span-dictionary.js';

/** Codec 1: raw deflate, preset dictionary v1 (written at level 6 until decision 0038, at 3 since). */
const CODEC_DEFLATE_V1 = 1;
const CODEC_BYTE = Buffer.from([CODEC_DEFLATE_V1]);
/**
 * The dictionary is the codec; the level and the output chunk are not (inflate needs neither). Level 3: 6.0
 * against 8.4 µs per span at level 6 on the bench's blocks, for 84 against 76 bytes (decision 0038). zlib's
 * default chunk (16 KiB) is allocated for each block and kept under the packed bytes, whose usual size is under
 * 1 KiB: 2 KiB measured 1.5–2.3 µs faster per 8-span block (of 50–55), with 21–40 % less GC time.
 */
const DEFLATE_OPTIONS = { level: 3, dictionary: SPAN_DICTIONARY_V1, chunkSize: 2048 };

/**
 * The block whose spans' JSON is `spans` (span-codec.ts), packed: the codec byte, then the deflated text of
 * `[${spans.join(',')}]`.
 */
export function packSpans(spans: readonly string[]): Buffer {
  return Buffer.concat(packSpanParts(spans));
}

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]
/** Scratch space kept up to this size; a larger block gets a buffer of its own. */
const KEEP_SCRATCH = 1 << 20;
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * packSpans as its two parts, for a caller that joins many blocks into one buffer. The array is written as UTF-8
 * into scratch space reused from block to block and deflated from there: the joined text and its UTF-8 copy were
 * a sixth of what the decoding thread allocated per span, and every allocation there is scavenger work.
 */
export function packSpanParts(spans: readonly string[]): [Buffer, Buffer] {
  // A UTF-16 unit is at most 3 bytes of UTF-8; a pair of surrogates (2 units) is 4.
  let bound = spans.length + 2;
  for (const json of spans) bound += json.length * 3;
  let into = scratch;
  if (bound > into.length) {
    into = Buffer.allocUnsafe(bound);
    if (bound <= KEEP_SCRATCH) scratch = into;
  }
  into[0] = OPEN;
  let at = 1;
  for (let i = 0; i < spans.length; i++) {
    if (i > 0) into[at++] = COMMA;
    at += into.write(spans[i] as string, at);
  }
  into[at++] = CLOSE;
  // Synchronous: zlib has read the bytes before the scratch is written again.
  return [CODEC_BYTE, deflateRawSync(into.subarray(0, at), DEFLATE_OPTIONS)];
}

/**
 * A stored block's JSON text: a string as it is (written before packing), a packed BLOB (a Buffer, or the
 * Uint8Array a reader thread hands over) unpacked. An unknown codec or a damaged BLOB is null, and `onDamage`
 * hears of it.
 */
export function unpackBlock(stored: unknown, onDamage?: (what: string) => void): string | null {
  if (typeof stored === 'string') return stored;
  if (!(stored instanceof Uint8Array) || stored.length === 0) {
    onDamage?.('a span block is neither text nor a packed block');
    return null;
  }
  if (stored[0] !== CODEC_DEFLATE_V1) {
    onDamage?.(`a span block has an unknown codec (${stored[0]})`);
    return null;
  }
  try {
    return inflateRawSync(stored.subarray(1), { dictionary: SPAN_DICTIONARY_V1 }).toString('utf8');
  } catch {
    onDamage?.('a packed span block does not inflate');
    return null;
  }
}
