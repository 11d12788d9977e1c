// Span blocks deflated with one zlib state reset between blocks (decision 0071): the Node this runs on lays out
// the native handle as the deflater expects (where a Node release changes it, this fails instead of the collector
// silently deflating at the old cost), and every block of a long mixed sequence comes back alone, with the
// dictionary, at the size a fresh stream gives it.
import { randomBytes } from 'node:crypto';
import { DeflateRaw, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BlockDeflater, type Native, nativeOf } from '../src/storage/block-deflater.js';
import { blockDeflater } from '../src/storage/block-packing.js';
import { SPAN_DICTIONARY_V1 } from '../src/storage/span-dictionary.js';

const options = { level: 3, dictionary: SPAN_DICTIONARY_V1 };
const inflate = (b: Uint8Array) => inflateRawSync(b, { dictionary: SPAN_DICTIONARY_V1 });
/**
 * How many of a block's bytes its deflate stream takes: all of them, or bytes follow its end. With `info`,
 * zlib answers its engine beside the buffer (node's types do not say so).
 */
const streamBytes = (b: Uint8Array) =>
  (
    inflateRawSync(b, { dictionary: SPAN_DICTIONARY_V1, info: true }) as unknown as {
      engine: { bytesWritten: number };
    }
  ).engine.bytesWritten;

/** A block of `n` spans in the stored JSON's shape, its texts varied by `seed`. */
function block(n: number, seed: number): Buffer {
  const spans = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      s: (seed * 977 + i).toString(16).padStart(16, '0'),
      p: i === 0 ? null : (seed * 977).toString(16).padStart(16, '0'),
      n: `execute_tool tool_${(seed + i) % 7}`,
      k: 1,
      st: String(1_700_000_000_000_000_000n + BigInt(seed * 1000 + i)),
      en: String(1_700_000_000_000_500_000n + BigInt(seed * 1000 + i)),
      a: {
        'gen_ai.tool.name': `tool_${(seed + i) % 7}`,
        'toolscope.input.shape': `q:string,n:number,x${seed % 5}:boolean`,
        'toolscope.input.hash': (seed * 31 + i).toString(36).repeat(4),
      },
    }),
  );
  return Buffer.from(`[${spans.join(',')}]`);
}

describe('block deflater', () => {
  it('reuses one zlib state on this Node, for the collector and a deflater of its own', () => {
    expect(new BlockDeflater(options).reusing).toBe(true);
    blockDeflater().deflate(block(1, 1));
    expect(blockDeflater().reusing).toBe(true);
  });

  it('deflates each block of a mixed sequence on its own, with the dictionary, at a fresh stream’s size', () => {
    const deflater = new BlockDeflater(options);
    // Small and large blocks, and incompressible ones past the 16 KiB output scratch (it grows, and past 1 MiB
    // is let go), then small ones again: each must inflate without any block before it.
    const json = (i: number) => block(1 + (i % 9), i);
    const inputs = [
      ...Array.from({ length: 40 }, (_, i) => json(i)),
      randomBytes(40_000),
      block(8, 100),
      block(400, 101),
      randomBytes(2_000_000),
      ...Array.from({ length: 40 }, (_, i) => json(200 + i)),
      Buffer.alloc(0),
      block(8, 300),
    ];
    for (const input of inputs) {
      const out = deflater.deflate(input);
      expect(inflate(out).equals(input)).toBe(true);
      expect(streamBytes(out)).toBe(out.length);
      // A reset state may pick another match near a block's end than a fresh one: a byte or two, no more.
      expect(out.length).toBeLessThanOrEqual(deflateRawSync(input, options).length + 2);
    }
    expect(deflater.reusing).toBe(true);
  });

  it('sets the dictionary again for every block: a block does not inflate without it', () => {
    const deflater = new BlockDeflater(options);
    for (let i = 0; i < 5; i++) {
      const input = block(8, i);
      const out = deflater.deflate(input);
      expect(() => inflateRawSync(out)).toThrow();
      expect(out.length).toBeLessThan(deflateRawSync(input, { level: 3 }).length);
    }
  });

  it('keeps each deflater’s state its own when two take turns', () => {
    const a = new BlockDeflater(options);
    const b = new BlockDeflater(options);
    for (let i = 0; i < 20; i++) {
      const x = block(3 + (i % 5), i);
      const y = randomBytes(500 + i * 37);
      expect(inflate(a.deflate(x)).equals(x)).toBe(true);
      expect(inflate(b.deflate(y)).equals(y)).toBe(true);
    }
  });

  describe('falls back to a stream per block', () => {
    const real = (o: ZlibOptions) => nativeOf(new DeflateRaw(o)) as Native;
    const checkBlocks = (deflater: BlockDeflater) => {
      for (let i = 0; i < 10; i++) {
        const input = block(8, i);
        expect(inflate(deflater.deflate(input)).equals(input)).toBe(true);
      }
    };

    it('where the handle is missing, throws, writes damage or lost its dictionary', () => {
      const throwing = (o: ZlibOptions): Native => {
        const n = real(o);
        n.handle.writeSync = () => {
          throw new Error('writeSync signature changed');
        };
        return n;
      };
      const damaging = (o: ZlibOptions): Native => {
        const n = real(o);
        const write = n.handle.writeSync.bind(n.handle);
        n.handle.writeSync = (flush, input, inAt, inLength, out, outAt, outLength) => {
          write(flush, input, inAt, inLength, out, outAt, outLength);
          out[outAt] = (out[outAt] as number) ^ 0xff;
        };
        return n;
      };
      // A state that deflates without the dictionary: its blocks round-trip, only the probe can tell.
      const noDictionary = () => real({ level: 3 });
      for (const open of [() => undefined, throwing, damaging, noDictionary]) {
        const deflater = new BlockDeflater(options, open);
        expect(deflater.reusing).toBe(false);
        checkBlocks(deflater);
      }
    });

    it('once zlib reports an error, saying so once', async () => {
      let writes = 0;
      const failingLater = (o: ZlibOptions): Native => {
        const n = real(o);
        const write = n.handle.writeSync.bind(n.handle);
        n.handle.writeSync = (flush, input, inAt, inLength, out, outAt, outLength) => {
          // The probe's two writes and three blocks pass; the fourth block's write fails as zlib reports it.
          if (++writes === 6) n.handle.onerror('buffer error', -5);
          else write(flush, input, inAt, inLength, out, outAt, outLength);
        };
        return n;
      };
      const warnings: Error[] = [];
      const onWarning = (w: Error) => warnings.push(w);
      process.on('warning', onWarning);
      try {
        const deflater = new BlockDeflater(options, failingLater);
        expect(deflater.reusing).toBe(true);
        checkBlocks(deflater);
        expect(deflater.reusing).toBe(false);
        await new Promise((resolve) => setImmediate(resolve));
        const ours = warnings.filter(
          (w) => (w as { code?: string }).code === 'TOOLSCOPE_BLOCK_DEFLATE',
        );
        expect(ours.map((w) => w.message)).toEqual([
          'deflating span blocks with one zlib state failed (buffer error (-5)); each block is deflated on its own from now on',
        ]);
      } finally {
        process.off('warning', onWarning);
      }
    });
  });
});
