// What SQLite's detector state keeps of a conversation's key filter: the filter's own bytes, never a view that
// holds a whole slab of Node's buffer pool (the filter cache counts bytes, decision 0071).
import { describe, expect, it } from 'vitest';
import { emptyFilter, filterAdd, filterBytes, filterOf } from '../../detection/key-filter.js';
import { keptBytes } from './detector-state.js';

describe('kept filter bytes', () => {
  it('copies a filter written into the pool to a buffer of its own, byte for byte', () => {
    const f = emptyFilter();
    filterAdd(f, 'tool_1 00000019f519f70a');
    const written = filterBytes(f);
    // filterBytes writes into Node's 8 KiB pool: the view's buffer is the slab.
    expect(written.buffer.byteLength).toBeGreaterThan(written.byteLength);
    const kept = keptBytes(written) as Uint8Array;
    expect(kept).not.toBe(written);
    expect(kept.byteOffset).toBe(0);
    expect(kept.buffer.byteLength).toBe(written.byteLength);
    expect(Buffer.from(kept).equals(Buffer.from(written))).toBe(true);
    // And it reads as the same filter.
    expect(filterBytes(filterOf(kept))).toEqual(filterBytes(filterOf(written)));
  });

  it('keeps bytes that are their own buffer, and no filter, as they are', () => {
    const own = new Uint8Array(516);
    expect(keptBytes(own)).toBe(own);
    expect(keptBytes(null)).toBeNull();
  });
});
