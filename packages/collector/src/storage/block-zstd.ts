// Span blocks as zstd frames over the preset dictionary v2: codec 2 (docs/decisions/0080). Deflate over
// dictionary v1 (codec 1) was a quarter of the decoding thread's time. Dictionary v2 is v1's content with
// entropy tables in zstd's format, so a frame carries no tables of its own: on the bench's 8-span blocks (4.6 KB
// of JSON) 617 bytes in 7.6 µs where deflate made 671 in 26, and one-span blocks smaller than deflate's too.
// Each frame holds its content size, which the reader allocates from, and the dictionary's id (two bytes). One
// compression and one decompression context per thread, made with the thread's first block: zstd-napi is a
// Node-API module, so each worker thread loads its own.
import zstd from 'zstd-napi/binding.js';
import { SPAN_DICTIONARY_V2 } from './span-dictionary-v2.js';

/**
 * zstd's own default level, and the one dictionary v2's tables were made for: level 4 took 1.7 × the time for 3 %
 * fewer bytes (decision 0080).
 */
const LEVEL = 3;
/** The output scratch's first size, and the most it keeps after a larger block (as ByteSink keeps its own). */
const OUT_BYTES = 16 * 1024;
const KEEP = 1 << 20;

interface Packer {
  cctx: zstd.CCtx;
  cdict: zstd.CDict;
  out: Buffer;
}
interface Unpacker {
  dctx: zstd.DCtx;
  ddict: zstd.DDict;
}
let packer: Packer | undefined;
let unpacker: Unpacker | undefined;

/** `input` as one zstd frame over dictionary v2, in bytes of its own. */
export function zstdBlock(input: Uint8Array): Buffer {
  packer ??= {
    cctx: new zstd.CCtx(),
    cdict: new zstd.CDict(SPAN_DICTIONARY_V2, LEVEL),
    out: Buffer.allocUnsafe(OUT_BYTES),
  };
  const bound = zstd.compressBound(input.length);
  if (packer.out.length < bound) packer.out = Buffer.allocUnsafe(bound);
  const length = packer.cctx.compressUsingCDict(packer.out, input, packer.cdict);
  const bytes = Buffer.from(packer.out.subarray(0, length));
  // One incompressible block of a large request must not pin its size for the thread's life.
  if (packer.out.length > KEEP) packer.out = Buffer.allocUnsafe(OUT_BYTES);
  return bytes;
}

/**
 * A codec-2 frame's content; throws where the bytes are not one whole frame over dictionary v2. The buffer is
 * sized from the frame's header: a damaged header asks for at most Buffer's own limit (allocUnsafe throws past
 * it), and the pages of an oversized one are never touched, since decompression stops at the damage.
 */
export function unzstdBlock(frame: Uint8Array): Buffer {
  unpacker ??= { dctx: new zstd.DCtx(), ddict: new zstd.DDict(SPAN_DICTIONARY_V2) };
  const size = zstd.getFrameContentSize(frame);
  if (size === null) throw new Error('a zstd frame without its content size');
  const out = Buffer.allocUnsafe(size);
  const length = unpacker.dctx.decompressUsingDDict(out, frame, unpacker.ddict);
  if (length !== size) throw new Error(`a zstd frame of ${length} bytes claimed ${size}`);
  return out;
}
