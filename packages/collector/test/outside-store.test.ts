// A store from outside the package (CollectorOptions.storage) written against `write(batch: WriteBatch)` keeps
// working: the collector seals its queue's batches (decision 0075) only for a store that says it takes them
// (Storage.takesSealed), as both built-in backends do, and gives any other store processed batches. Both
// kinds of write reach the same rows.
import { describe, expect, it } from 'vitest';
import type { Storage, WriteInput } from '../src/index.js';
import { isSealed } from '../src/storage/threads/sealed-batch.js';
import { getJson, otlpToolCalls, postJson, startTestCollector } from './harness.js';

/** The real store of `owner`, saying `takesSealed` as asked, and noting what kind of batch each write was. */
function recording(real: Storage, takesSealed: boolean | undefined, kinds: string[]): Storage {
  const { takesSealed: _real, ...rest } = real;
  return {
    ...rest,
    ...(takesSealed === undefined ? {} : { takesSealed }),
    write: (batch: WriteInput) => {
      kinds.push(isSealed(batch) ? 'sealed' : 'processed');
      return real.write(batch);
    },
  };
}

describe('a store from outside the package', () => {
  for (const [takesSealed, kind] of [
    [undefined, 'processed'],
    [true, 'sealed'],
  ] as const) {
    it(`gets ${kind} batches when takesSealed is ${String(takesSealed)}`, async () => {
      const owner = await startTestCollector();
      const kinds: string[] = [];
      const c = await startTestCollector({ storage: recording(owner.storage, takesSealed, kinds) });
      try {
        const now = Date.now();
        for (let trace = 1; trace <= 3; trace++) {
          const calls = [0, 1].map((i) => ({
            trace,
            input: `h${trace}-${i}`,
            atMs: now - 60_000 + trace * 10 + i,
          }));
          expect((await postJson(c.url, otlpToolCalls(calls))).status).toBe(200);
        }
        expect(kinds.length).toBeGreaterThan(0);
        expect(new Set(kinds)).toEqual(new Set([kind]));
        const tools = await getJson<{ tools: { calls: number }[] }>(
          `${c.url}/api/tools?tool=get_order`,
        );
        expect(tools.body.tools.map((t) => t.calls)).toEqual([6]);
      } finally {
        await c.stop();
        await owner.stop();
      }
    });
  }
});
