// Both sides of a call (storage/call-side.ts), on every backend: a call traced by the client and the server
// counts once, whichever side's batch comes first and whether the two are linked by parentage or by call id;
// a call seen only by the client counts; `side` reads one side's rows; statistics agree between the rollups
// (whole minutes) and raw rows (the edges of a range).
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import { BACKENDS } from '../backends.js';
import { readCalls, readSeries, readTools } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, nowNs } from './spans.js';
import { useStores } from './stores.js';

const CLIENT = 3;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`call sides: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('counts a call traced on both sides once, in any arrival order, and a client-only call once', async () => {
      const s = await openAt(await fresh());
      // Call A: client first, server (its child) in a later batch. The server's failure is what counts.
      await writeSpans(s, [callSpan({ trace: 1, span: 1, kind: CLIENT, agoMs: 3 * 60_000 })]);
      await writeSpans(s, [
        callSpan({ trace: 1, span: 2, parent: 1, code: 'INVALID_INPUT', agoMs: 3 * 60_000 }),
      ]);
      // Call B: server first, then the client; linked by call id, not by parentage.
      await writeSpans(s, [callSpan({ trace: 2, span: 2, callId: 'call-b', agoMs: 3 * 60_000 })]);
      await writeSpans(s, [
        callSpan({ trace: 2, span: 1, kind: CLIENT, callId: 'call-b', agoMs: 3 * 60_000 }),
      ]);
      // Call C: both sides in one batch. Call D: only the client saw it (an agent instrumented on its side).
      await writeSpans(s, [
        callSpan({ trace: 3, span: 1, kind: CLIENT, agoMs: 3 * 60_000 }),
        callSpan({ trace: 3, span: 2, parent: 1, agoMs: 3 * 60_000 }),
        callSpan({ trace: 4, span: 1, kind: CLIENT, code: 'RETRYABLE', agoMs: 3 * 60_000 }),
      ]);
      const now = nowNs();
      // Whole minutes come from the rollups, the edges from raw rows: both ways must agree.
      for (const [since, until] of [
        [now - HOUR_NS, now + HOUR_NS],
        [now - 5n * 60_000_000_000n + 1n, now],
      ] as const) {
        const [any] = await readTools(s, since, until, 'get_order');
        expect(any).toMatchObject({
          calls: 4,
          errors: 2,
          codes: { INVALID_INPUT: 1, RETRYABLE: 1 },
        });
        const [server] = await readTools(s, since, until, 'get_order', 'server');
        expect(server).toMatchObject({ calls: 3, errors: 1 });
        const [client] = await readTools(s, since, until, 'get_order', 'client');
        expect(client).toMatchObject({ calls: 4, errors: 1, codes: { RETRYABLE: 1 } });
        const series = await readSeries(s, since, until, 60_000, 'get_order', 'any', true);
        expect(series.points.reduce((n, p) => n + p.calls, 0)).toBe(4);
        // Errors by code, with the paired client's view of a server's failure counted once.
        const byCode: Record<string, number> = {};
        for (const p of series.points)
          for (const [code, n] of Object.entries(p.errorsByCode))
            byCode[code] = (byCode[code] ?? 0) + n;
        expect(byCode).toEqual({ INVALID_INPUT: 1, RETRYABLE: 1 });
        const [perTool] = series.tools ?? [];
        expect(perTool?.name).toBe('get_order');
        expect(perTool?.calls).toHaveLength(series.points.length);
        expect(perTool?.calls.reduce((n, c) => n + c, 0)).toBe(4);
        expect(perTool?.errors.reduce((n, c) => n + c, 0)).toBe(2);
      }
      const window = { sinceNs: now - HOUR_NS, untilNs: now + HOUR_NS, limit: 50 };
      const listed = await readCalls(s, window);
      expect(listed.calls.map((c) => `${c.side}:${c.paired}`).sort()).toEqual([
        'client:false',
        'server:false',
        'server:false',
        'server:false',
      ]);
      const clients = await readCalls(s, { ...window, side: 'client' });
      expect(clients.calls.filter((c) => c.paired)).toHaveLength(3);
      expect(clients.calls.every((c) => c.side === 'client' && c.source === 'toolscope')).toBe(
        true,
      );
      const [summary] = await readTools(s, now - HOUR_NS, now + HOUR_NS);
      expect(summary?.sources).toEqual(['toolscope']);
    });

    it('finds a loop once when both sides of each repeated call are stored', async () => {
      const s = await openAt(await fresh());
      for (let i = 1; i <= 3; i++) {
        await writeSpans(s, [
          callSpan({
            trace: 5,
            span: i * 2,
            parent: i * 2 - 1,
            input: 'abababababababab',
            code: 'FAILED',
          }),
        ]);
        await writeSpans(s, [
          callSpan({
            trace: 5,
            span: i * 2 - 1,
            kind: CLIENT,
            input: 'abababababababab',
            code: 'FAILED',
          }),
        ]);
      }
      const flags = await flagsOf(s, nowNs() - HOUR_NS, nowNs() + HOUR_NS, {});
      // Three calls, not six: each flag of the loop counts the server rows only.
      expect(flags.map((f) => f.kind)).toContain('identical_retry');
      expect(flags.map((f) => f.count)).toEqual(flags.map(() => 3));
    });
  });
}
