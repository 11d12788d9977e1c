// Both backends' writers take a share of a memory limit (storage/threads/writer-memory.ts): at the default
// 200 MiB a write holds at most 1,024 spans on SQLite and 2,048 on PostgreSQL (whose writes fill first, decision
// 0086), and without a limit the store sets no bound of its own.
import { describe, expect, it } from 'vitest';
import { BACKENDS, open } from '../backends.js';

const MiB = 1024 * 1024;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`write size under a memory limit: ${backend.name}`, () => {
    const atDefault = backend.name === 'postgres' ? 2048 : 1024;
    it(`holds ${atDefault} spans a write at 200 MiB, and sets no bound without a limit`, async () => {
      const place = await backend.location();
      try {
        for (const [memoryLimitBytes, spans] of [
          [200 * MiB, atDefault],
          [undefined, undefined],
        ] as const) {
          const storage = await open(place.db, { memoryLimitBytes });
          try {
            expect(storage.writeSpans).toBe(spans);
          } finally {
            await storage.close();
          }
        }
      } finally {
        await place.drop();
      }
    });
  });
}
