// The bounds a memory limit sizes before the limiter can see a wave of requests: a sixteenth of the limit in
// bodies, 48 spans per MiB waiting for their commit.
import { describe, expect, it } from 'vitest';
import { ingestBounds } from './memory-limit.js';

const MiB = 1024 * 1024;

describe('ingestBounds', () => {
  it('scales the bodies in flight and the spans pending with the limit, up to their defaults', () => {
    expect(ingestBounds(200 * MiB)).toEqual({ inflightBytes: 12.5 * MiB, pendingSpans: 9_600 });
    expect(ingestBounds(undefined)).toEqual({ inflightBytes: 64 * MiB, pendingSpans: 200_000 });
    // A store's own figure (PostgreSQL's 80 per MiB).
    expect(ingestBounds(200 * MiB, 80)).toEqual({
      inflightBytes: 12.5 * MiB,
      pendingSpans: 16_000,
    });
    expect(ingestBounds(undefined, 80).pendingSpans).toBe(200_000);
    expect(ingestBounds(16 * 1024 * MiB)).toEqual({
      inflightBytes: 64 * MiB,
      pendingSpans: 200_000,
    });
  });
});
