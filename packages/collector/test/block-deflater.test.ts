// Span blocks deflated with one zlib state reset between blocks (decision 0071): the Node this runs on lays out
// the native handle as the deflater expects (where a Node release changes it, this fails instead of the collector
// silently deflating at the old cost), and every block of a long mixed sequence comes back alone, with the
// dictionary, at the size a fresh stream gives it.
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BlockDeflater } from '../src/storage/block-deflater.js';
import { blockDeflater } from '../src/storage/block-packing.js';
import { SPAN_DICTIONARY_V1 } from '../src/storage/span-dictionary.js';

const options = { level: 3, dictionary: SPAN_DICTIONARY_V1 };
const inflate = (b: Uint8Array) => inflateRawSync(b, { dictionary: SPAN_DICTIONARY_V1 });

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
    // Small and large blocks, and incompressible ones past the 16 KiB output scratch (it grows), then small
    // ones again: each must inflate without any block before it.
    const inputs = [
      ...Array.from({ length: 40 }, (_, i) => block(1 + (i % 9), i)),
      randomBytes(40_000),
      block(8, 100),
      block(400, 101),
      randomBytes(200_000),
      ...Array.from({ length: 40 }, (_, i) => block(1 + (i % 9), 200 + i)),
      Buffer.alloc(0),
      block(8, 300),
    ];
    let reused = 0;
    let fresh = 0;
    for (const input of inputs) {
      const out = deflater.deflate(input);
      expect(inflate(out).equals(input)).toBe(true);
      reused += out.length;
      fresh += deflateRawSync(input, options).length;
    }
    expect(deflater.reusing).toBe(true);
    expect(Math.abs(reused - fresh)).toBeLessThanOrEqual(fresh * 0.01);
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
});
