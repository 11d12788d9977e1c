// Call ids found by the (block of 4,096 rows, call_id) index (storage/call-block.ts) on every backend: exactly
// and by prefix in any block of the window, newest first, and not in blocks of calls that started before it.
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../backends.js';
import { readCalls, readSearch } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, nowNs } from './spans.js';
import { useStores } from './stores.js';

const DAY_MS = 86_400_000;
/** Enough calls for three blocks: the first started two days ago, the others within the hour. */
const OLD = 4_096;
const NEW = 4_500;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`call ids: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('finds an id in any block of the window, and none of a block older than it', async () => {
      const s = await openAt(await fresh());
      const spans = [
        ...Array.from({ length: OLD }, (_, i) =>
          callSpan({ trace: 1 + i, span: 1, callId: `old_${i}`, agoMs: 2 * DAY_MS }),
        ),
        ...Array.from({ length: NEW }, (_, i) =>
          callSpan({ trace: 10_000 + i, span: 1, callId: `new_${i}`, agoMs: 60_000 + (NEW - i) }),
        ),
      ];
      for (let i = 0; i < spans.length; i += 1_000) await writeSpans(s, spans.slice(i, i + 1_000));
      const since = nowNs() - HOUR_NS;
      const labels = async (q: string) =>
        (await readSearch(s, q, since)).filter((h) => h.kind === 'call').map((h) => h.label);
      // The first new call is in the block the old calls end in; the last in the newest block.
      expect(await labels('new_0')).toEqual(['call new_0 (get_order)']);
      expect(await labels(`new_${NEW - 1}`)).toEqual([`call new_${NEW - 1} (get_order)`]);
      // A prefix: the exact id first, then ids that start with it, newest first, ten in all.
      const prefixed = await labels('new_44');
      expect(prefixed[0]).toBe('call new_44 (get_order)');
      expect(prefixed).toHaveLength(10);
      const numbers = prefixed.slice(1).map((l) => Number(/new_(\d+)/.exec(l)?.[1]));
      expect(numbers.every((n) => String(n).startsWith('44'))).toBe(true);
      expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
      expect(await labels('old_')).toEqual([]);
      const byId = async (callId: string, sinceNs: bigint) =>
        (await readCalls(s, { sinceNs, untilNs: nowNs() + HOUR_NS, limit: 10, callId })).calls.map(
          (c) => c.callId,
        );
      expect(await byId('new_2', since)).toEqual(['new_2']);
      expect(await byId('old_7', since)).toEqual([]);
      expect(await byId('old_7', nowNs() - 3n * 24n * HOUR_NS)).toEqual(['old_7']);
    });
  });
}
