// Deflating span blocks with one zlib state per thread, reset between blocks (docs/decisions/0071). deflateRawSync
// builds a zlib stream, its native state and its dictionary's hash chains for every block and frees them after:
// on bench:ingest's 8-span blocks (4.6 KB of JSON) that was 37 µs a block against 29 with one state reset, and
// deflate was the HTTP thread's largest cost. Node offers the reset state only through its stream's native
// handle (lib/zlib.js calls it `_handle`), not public API: it is checked before use, checked by a round trip,
// and where either check fails each block is deflated on its own as before. zlib's deflateReset is what the
// stream's reset() calls, and it sets the dictionary again, so every block stays decodable on its own.
import { constants, DeflateRaw, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';

/** What is used of the stream's native handle (node's src/node_zlib.cc): a synchronous write, and a reset. */
export interface NativeZlib {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  reset(): void;
  onerror: (message: string, errno: number) => void;
}

export interface Native {
  /** Held so that the handle lives as long as this deflater (the stream owns it). */
  stream: DeflateRaw;
  handle: NativeZlib;
  /** Where writeSync leaves [output bytes left, input bytes left]. */
  state: Uint32Array;
}

/** The stream's native parts, or undefined where this Node lays them out otherwise. */
export function nativeOf(stream: DeflateRaw): Native | undefined {
  const inner = stream as unknown as { _handle?: Partial<NativeZlib>; _writeState?: unknown };
  const handle = inner._handle;
  const state = inner._writeState;
  if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function')
    return undefined;
  if (!(state instanceof Uint32Array) || state.length < 2) return undefined;
  return { stream, handle: handle as NativeZlib, state };
}

/** Where a deflater gets its native state: a seam for the tests of the fallback, nothing else. */
export type OpenNative = (options: ZlibOptions) => Native | undefined;
const openNative: OpenNative = (options) => nativeOf(new DeflateRaw(options));

/**
 * A block whose deflate uses the dictionary (its keys are in it), checked at start: it must come back whole
 * with the dictionary, and must not inflate without it (a state whose reset lost the dictionary would still
 * round-trip, only larger).
 */
const PROBE = Buffer.from(
  '[{"s":"00f067aa0ba902b7","p":null,"n":"execute_tool get_order","k":1,"st":"1","en":"2","a":{"gen_ai.tool.name":"get_order"}}]',
);
/** The output scratch's first size, and the most it keeps after a larger block (as ByteSink keeps its own). */
const OUT_BYTES = 16 * 1024;
const KEEP = 1 << 20;

export class BlockDeflater {
  readonly #options: ZlibOptions;
  #native: Native | undefined;
  /** The output scratch, grown for a large block; each block's bytes are copied out of it. */
  #out = Buffer.allocUnsafe(OUT_BYTES);
  #error: string | undefined;

  constructor(options: ZlibOptions, open: OpenNative = openNative) {
    this.#options = options;
    try {
      const native = open(options);
      if (!native) return;
      // A failed write reports here (the stream's own handler would destroy it and emit 'error' later).
      native.handle.onerror = (message, errno) => {
        this.#error = `${message} (${errno})`;
      };
      this.#native = native;
      if (!this.#probed(options.dictionary as Uint8Array | undefined)) this.#native = undefined;
    } catch {
      // A handle of another shape that threw: each block on its own, as deflateRawSync does.
      this.#native = undefined;
    }
  }

  /** Whether blocks are deflated with the one reset state (false: each on its own, as deflateRawSync does). */
  get reusing(): boolean {
    return this.#native !== undefined;
  }

  /** `input` deflated (raw, with the options' dictionary), as bytes of its own. */
  deflate(input: Uint8Array): Buffer {
    if (this.#native) {
      let out: Buffer | undefined;
      try {
        out = this.#tryNative(input);
      } catch (e) {
        this.#error = e instanceof Error ? e.message : String(e);
      }
      if (out) return out;
      process.emitWarning(
        `deflating span blocks with one zlib state failed (${this.#error}); each block is deflated on its own from now on`,
        { code: 'TOOLSCOPE_BLOCK_DEFLATE' },
      );
      this.#native = undefined;
    }
    return deflateRawSync(input, this.#options);
  }

  /** The probe through the reset state, twice: whole with the dictionary, unreadable without it. */
  #probed(dictionary: Uint8Array | undefined): boolean {
    for (let i = 0; i < 2; i++) {
      const back = this.#tryNative(PROBE);
      if (!back || !inflateRawSync(back, { dictionary }).equals(PROBE)) return false;
      if (dictionary && inflates(back)) return false;
    }
    return true;
  }

  /** The block through the reset state; undefined if zlib reported an error. */
  #tryNative(input: Uint8Array): Buffer | undefined {
    const { handle, state } = this.#native as Native;
    this.#error = undefined;
    handle.reset();
    let inAt = 0;
    let outAt = 0;
    for (;;) {
      const out = this.#out;
      handle.writeSync(
        constants.Z_FINISH,
        input,
        inAt,
        input.length - inAt,
        out,
        outAt,
        out.length - outAt,
      );
      if (this.#error !== undefined) return undefined;
      const outLeft = state[0] as number;
      const inLeft = state[1] as number;
      outAt = out.length - outLeft;
      inAt = input.length - inLeft;
      // With Z_FINISH, output space left over means the stream has ended.
      if (outLeft > 0) break;
      const grown = Buffer.allocUnsafe(out.length * 2);
      out.copy(grown, 0, 0, outAt);
      this.#out = grown;
    }
    const bytes = Buffer.from(this.#out.subarray(0, outAt));
    // One incompressible block of a large request must not pin its size for the thread's life.
    if (this.#out.length > KEEP) this.#out = Buffer.allocUnsafe(OUT_BYTES);
    return bytes;
  }
}

/** Whether raw deflate bytes inflate without a dictionary. */
function inflates(bytes: Uint8Array): boolean {
  try {
    inflateRawSync(bytes);
    return true;
  } catch {
    return false;
  }
}
