// Span blocks as zstd frames over the preset dictionary v2: codec 2 (docs/decisions/0080). Deflate over
// dictionary v1 (codec 1) was a quarter of the decoding thread's time. Dictionary v2 is v1's content with
// entropy tables in zstd's format, so a frame carries no tables of its own: on the bench's 8-span blocks (4.6 KB
// of JSON) 616 bytes in 6.9 µs where deflate made 677 in 32 (bench/block-codecs.bench.ts), one-span blocks
// smaller than deflate's too, and the demo's blocks as small as deflate's.
// Each frame holds its content size, which the reader allocates from, the dictionary's id (two bytes) and, since
// decision 0084, a checksum of its content (four bytes): a frame damaged on disk can decode without an error into
// other JSON, which the checksum turns into a block reported as damaged. One compression and one decompression
// context per thread, made with the thread's first block: zstd-napi is a Node-API module, so each worker thread
// loads its own.
import zstd from 'zstd-napi/binding.js';
import { ByteSink } from './byte-sink.js';
import { SPAN_DICTIONARY_V2 } from './span-dictionary-v2.js';

/**
 * zstd's own default level, and the one dictionary v2's tables were made for: level 4 took 1.7 × the time for 3 %
 * fewer bytes (decision 0080).
 */
export const BLOCK_LEVEL = 3;

interface Packer {
  /** Dictionary v2 loaded once (zstd digests it with the first frame and keeps it), the level and the checksum set. */
  cctx: zstd.CCtx;
  /** The output scratch, sized for each block's bound; a sink's own rule drops it once grown past 1 MiB. */
  out: ByteSink;
}
interface Unpacker {
  dctx: zstd.DCtx;
  ddict: zstd.DDict;
}
let packer: Packer | undefined;
let unpacker: Unpacker | undefined;

/**
 * A context writing frames over dictionary v2 at BLOCK_LEVEL with a content checksum. `compressUsingCDict`, used
 * before, writes none (it takes a prepared dictionary but no frame parameters); `compress2` takes the context's.
 * The checksum costs about half a microsecond and four bytes per 8-span block (decision 0084).
 */
function checksummingContext(): zstd.CCtx {
  const cctx = new zstd.CCtx();
  // Parameters before the dictionary, the order zstd.h asks for: the dictionary is digested for them.
  cctx.setParameter(zstd.CParameter.compressionLevel, BLOCK_LEVEL);
  cctx.setParameter(zstd.CParameter.checksumFlag, 1);
  cctx.loadDictionary(SPAN_DICTIONARY_V2);
  return cctx;
}

/** `input` as one zstd frame over dictionary v2, with its content's checksum, in bytes of its own. */
export function zstdBlock(input: Uint8Array): Buffer {
  packer ??= { cctx: checksummingContext(), out: new ByteSink(16 * 1024) };
  const { out } = packer;
  out.reset();
  out.ensure(zstd.compressBound(input.length));
  const length = packer.cctx.compress2(out.buf, input);
  return Buffer.from(out.buf.subarray(0, length));
}

/**
 * A claimed content size up to this is allocated at once; past it the frame is decompressed a chunk at a time, so
 * that a damaged header claiming gigabytes gets only what the frame really holds (a 4 GiB claim was allocated
 * whole, and counted as external memory, before the read failed). Blocks this large are rare: 16 MiB of JSON is
 * a whole default request body's spans in one trace.
 */
const TRUSTED_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1 << 20;

/**
 * A codec-2 frame's content; throws where the bytes are not one whole frame with its content size, over
 * dictionary v2 or naming none (zstd checks the size, the dictionary's id and the content's checksum where the
 * frame has one, as frames written before decision 0084 have not; bytes left after the frame fail the size
 * check, empty or skippable frames after it are zstd's own and allowed).
 */
export function unzstdBlock(frame: Uint8Array): Buffer {
  unpacker ??= { dctx: new zstd.DCtx(), ddict: new zstd.DDict(SPAN_DICTIONARY_V2) };
  const size = zstd.getFrameContentSize(frame);
  if (size === null) throw new Error('a zstd frame without its content size');
  if (size > TRUSTED_BYTES) return inChunks(frame);
  const out = Buffer.allocUnsafe(size);
  const length = unpacker.dctx.decompressUsingDDict(out, frame, unpacker.ddict);
  if (length !== size) throw new Error(`a zstd frame of ${length} bytes claimed ${size}`);
  return out;
}

/** The streaming context of inChunks, with dictionary v2 loaded once. */
let streaming: zstd.DCtx | undefined;

/** One frame decompressed a chunk at a time; zstd checks the content size its header claims at the end. */
function inChunks(frame: Uint8Array): Buffer {
  if (!streaming) {
    streaming = new zstd.DCtx();
    streaming.loadDictionary(SPAN_DICTIONARY_V2);
  }
  // A frame that failed part-way leaves the context inside it.
  streaming.reset(zstd.ResetDirective.sessionOnly);
  const chunks: Buffer[] = [];
  let total = 0;
  let at = 0;
  for (;;) {
    const out = Buffer.allocUnsafe(CHUNK_BYTES);
    const [left, produced, consumed] = streaming.decompressStream(out, frame.subarray(at));
    at += consumed;
    total += produced;
    if (produced > 0) chunks.push(out.subarray(0, produced));
    if (left === 0) {
      if (at !== frame.length) throw new Error('bytes after a zstd frame');
      return Buffer.concat(chunks, total);
    }
    if (produced === 0 && consumed === 0) throw new Error('a zstd frame cut short');
  }
}
