// A writer thread's share of a memory limit, on either backend: a write holds fewer spans under a small limit
// (they stay alive on the writer thread until it commits), never fewer than one common 512-span request, and no
// bound without a limit; the heap is capped only under a limit. The two backends' storages report it in
// test/conformance/writer-memory.conformance.test.ts.
import { describe, expect, it } from 'vitest';
import { sqliteMemory } from '../sqlite/memory-shares.js';
import { writerLimits, writerMemory } from './writer-memory.js';

const MiB = 1024 * 1024;

describe('writerMemory', () => {
  it('caps the heap under a limit only, and SQLite takes the same share', () => {
    expect(writerLimits(writerMemory(200 * MiB))).toEqual({
      resourceLimits: { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 32 },
      semiSpaceMb: 4,
    });
    expect(writerLimits(writerMemory(undefined))).toEqual({
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
    expect(sqliteMemory(200 * MiB)).toMatchObject(writerMemory(200 * MiB));
  });

  it('gives the old generation the share asked for, never under 32 MiB', () => {
    expect(writerMemory(200 * MiB).oldMb).toBe(32);
    expect(writerMemory(200 * MiB, 1 / 4).oldMb).toBe(50);
    expect(writerMemory(1024 * MiB, 1 / 4).oldMb).toBe(256);
    expect(writerMemory(undefined, 1 / 4).oldMb).toBeUndefined();
  });

  it('starts the semi-spaces at the share asked for (a fiftieth unless told), a power of two from 1 to 16 MiB', () => {
    expect(
      [64, 200, 400, 1024, 16 * 1024].map((mib) => writerMemory(mib * MiB).semiSpaceMb),
    ).toEqual([1, 4, 8, 16, 16]);
    // PostgreSQL's writer asks for a twenty-fifth: 8 MiB at the default limit, the young generation 24.
    expect(
      [64, 200, 400, 1024].map((mib) => writerMemory(mib * MiB, 1 / 4, 1 / 25).semiSpaceMb),
    ).toEqual([2, 8, 16, 16]);
    expect(writerLimits(writerMemory(200 * MiB, 1 / 4, 1 / 25))).toEqual({
      resourceLimits: { maxYoungGenerationSizeMb: 24, maxOldGenerationSizeMb: 50 },
      semiSpaceMb: 8,
    });
  });

  it('bounds a write to 1,024 spans at the default 200 MiB, and not at all without a limit', () => {
    expect(sqliteMemory(200 * MiB).writeSpans).toBe(1024);
    expect(sqliteMemory(undefined).writeSpans).toBeUndefined();
  });

  it('scales a write with the limit, between 512 and 8,192 spans', () => {
    expect(sqliteMemory(64 * MiB).writeSpans).toBe(512);
    expect(sqliteMemory(400 * MiB).writeSpans).toBe(2048);
    expect(sqliteMemory(16 * 1024 * MiB).writeSpans).toBe(8192);
  });

  it("gives PostgreSQL's writer twice the spans a write, within the same bounds", () => {
    const pg = (mib: number) => writerMemory(mib * MiB, 1 / 4, 1 / 25, 10).writeSpans;
    expect([32, 100, 200, 400, 16 * 1024].map(pg)).toEqual([512, 1024, 2048, 4096, 8192]);
    expect(writerMemory(undefined, 1 / 4, 1 / 25, 10).writeSpans).toBeUndefined();
  });
});
