// SQLite's shares of a memory limit: a write holds fewer spans under a small limit (they stay alive on the writer
// thread until it commits), never fewer than one common 512-span request, and no bound without a limit.
import { describe, expect, it } from 'vitest';
import { sqliteMemory } from './memory-shares.js';

const MiB = 1024 * 1024;

describe('sqliteMemory', () => {
  it('bounds a write to 1,024 spans at the default 200 MiB, and not at all without a limit', () => {
    expect(sqliteMemory(200 * MiB).writeSpans).toBe(1024);
    expect(sqliteMemory(undefined).writeSpans).toBeUndefined();
  });

  it('scales a write with the limit, between 512 and 8,192 spans', () => {
    expect(sqliteMemory(64 * MiB).writeSpans).toBe(512);
    expect(sqliteMemory(400 * MiB).writeSpans).toBe(2048);
    expect(sqliteMemory(16 * 1024 * MiB).writeSpans).toBe(8192);
  });
});
