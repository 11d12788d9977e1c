// The write queue's bound under a memory limit is the store's to size: PostgreSQL says 80 spans per MiB, SQLite
// takes the default 48 (ingest/memory-limit.ts; docs/decisions/0072-malloc-keeps-the-flood.md has the floods).
import { describe, expect, it } from 'vitest';
import { openStorage } from '../src/index.js';
import { ingestBounds, PENDING_SPANS_PER_MIB } from '../src/ingest/memory-limit.js';
import { freshPgDatabase, PG_URL } from './backends.js';

const MiB = 1024 * 1024;

describe('the spans pending per MiB of a memory limit', () => {
  it('are the default on SQLite', async () => {
    const storage = await openStorage(':memory:', { memoryLimitBytes: 200 * MiB });
    try {
      expect(storage.pendingSpansPerMiB).toBeUndefined();
      expect(ingestBounds(200 * MiB, storage.pendingSpansPerMiB).pendingSpans).toBe(
        200 * PENDING_SPANS_PER_MIB,
      );
    } finally {
      await storage.close();
    }
  });

  it.skipIf(!PG_URL)('are 80 on PostgreSQL', async () => {
    const storage = await openStorage(await freshPgDatabase(), { memoryLimitBytes: 200 * MiB });
    try {
      expect(storage.pendingSpansPerMiB).toBe(80);
      expect(ingestBounds(200 * MiB, storage.pendingSpansPerMiB).pendingSpans).toBe(16_000);
    } finally {
      await storage.close();
    }
  });
});
