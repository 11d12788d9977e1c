// The bounds a memory limit sizes: a write joins fewer requests under a small limit (its spans stay alive on the
// writer thread until it commits), never fewer than one request of the common 512-span batch.
import { describe, expect, it } from 'vitest';
import { ingestBounds } from './memory-limit.js';

const MiB = 1024 * 1024;

describe('ingestBounds', () => {
  it('joins at most 8,192 spans into a write without a limit, 1,024 at the default 200 MiB', () => {
    expect(ingestBounds(undefined).batchSpans).toBe(8192);
    expect(ingestBounds(200 * MiB).batchSpans).toBe(1024);
  });

  it('scales a write with the limit, between 512 and 8,192 spans', () => {
    expect(ingestBounds(64 * MiB).batchSpans).toBe(512);
    expect(ingestBounds(400 * MiB).batchSpans).toBe(2048);
    expect(ingestBounds(16 * 1024 * MiB).batchSpans).toBe(8192);
  });

  it('keeps the other bounds as they were: a sixteenth of the limit in bodies, 80 spans per MiB pending', () => {
    expect(ingestBounds(200 * MiB)).toMatchObject({
      inflightBytes: 12.5 * MiB,
      pendingSpans: 16_000,
    });
  });
});
