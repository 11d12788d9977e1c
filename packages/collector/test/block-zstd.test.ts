// Codec-2 frames as the reader meets them when they are not what the collector wrote (storage/block-zstd.ts,
// decision 0080): another dictionary's frame, bytes after a frame, and the blocks past the size the reader
// allocates at once, whole, cut short, or claiming gigabytes they do not hold (read a chunk at a time, so such
// a claim allocates nothing near it).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Compressor } from 'zstd-napi';
import { packSpans, unpackBlock } from '../src/storage/block-packing.js';
import { SPAN_DICTIONARY_V2 } from '../src/storage/span-dictionary-v2.js';

const damaged = (stored: Uint8Array) => {
  const heard: string[] = [];
  const read = unpackBlock(stored, (w) => heard.push(w));
  return { read, heard };
};
const codec2 = (frame: Uint8Array) => Buffer.concat([Buffer.from([2]), frame]);
const DAMAGE = ['a packed span block (codec 2) does not unpack'];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('codec-2 frames the collector did not write', () => {
  it('reports a frame over another dictionary, and bytes after a frame', () => {
    const span = JSON.stringify({ s: '1', a: { 'gen_ai.tool.name': 'get_order' } });
    // Dictionary v2 with another id (bytes 4-7 of a zstd dictionary): the same tables and content.
    const other = Buffer.from(SPAN_DICTIONARY_V2);
    other.writeUInt32LE(40_000, 4);
    const foreign = new Compressor();
    foreign.loadDictionary(other);
    const frame = foreign.compress(Buffer.from(`[${span}]`));
    expect(damaged(codec2(frame))).toEqual({ read: null, heard: DAMAGE });
    const packed = packSpans([span]);
    expect(unpackBlock(packed)).toBe(`[${span}]`);
    for (const tail of [[0], [1, 2, 3, 4, 5, 6, 7, 8]])
      expect(damaged(Buffer.concat([packed, Buffer.from(tail)]))).toEqual({
        read: null,
        heard: DAMAGE,
      });
  });

  it('reads a block past 16 MiB a chunk at a time, and reports one cut short or damaged inside', () => {
    const spans = Array.from({ length: 600 }, (_, i) =>
      JSON.stringify({ s: i.toString(16).padStart(16, '0'), a: { text: `${i} `.repeat(10_000) } }),
    );
    const joined = `[${spans.join(',')}]`;
    expect(joined.length).toBeGreaterThan(16 * 1024 * 1024);
    const packed = packSpans(spans);
    const sizes: number[] = [];
    const allocUnsafe = Buffer.allocUnsafe;
    vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((n: number) => {
      sizes.push(n);
      return allocUnsafe(n);
    });
    expect(unpackBlock(packed)).toBe(joined);
    // Chunks of 1 MiB, then the block joined at the size it turned out to have.
    expect(sizes.filter((n) => n > 1 << 20)).toEqual([Buffer.byteLength(joined)]);
    expect(damaged(packed.subarray(0, packed.length - 100))).toEqual({ read: null, heard: DAMAGE });
    const flipped = Buffer.from(packed);
    const middle = Math.floor(flipped.length / 2);
    flipped[middle] = (flipped[middle] as number) ^ 0xff;
    expect(damaged(flipped).read).not.toBe(joined);
  });

  it('reads a header claiming 4 GiB over three bytes as damage, allocating a chunk at most', () => {
    const frame = Buffer.concat([
      Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), // magic
      Buffer.from([0xe0]), // 8-byte content size, single segment, no dictionary id
      Buffer.from([0, 0, 0, 0, 1, 0, 0, 0]), // 2^32
      Buffer.from([0x19, 0x00, 0x00]), // the last block, raw, 3 bytes
      Buffer.from('abc'),
    ]);
    const sizes: number[] = [];
    const allocUnsafe = Buffer.allocUnsafe;
    vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((n: number) => {
      sizes.push(n);
      return allocUnsafe(n);
    });
    expect(damaged(codec2(frame))).toEqual({ read: null, heard: DAMAGE });
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1 << 20);
  });
});
