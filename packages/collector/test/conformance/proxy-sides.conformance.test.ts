// A call through `toolscope proxy`, on every backend: whoever traced it (the agent, the proxy, an instrumented
// server behind it, in any combination and arrival order) it counts once, from the innermost server row, in
// the raw rows (the edges of a range) and in the rollups (whole minutes), and loop detection counts it once.
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import { BACKENDS } from '../backends.js';
import { readCalls, readSeries, readTools } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, nowNs } from './spans.js';
import { useStores } from './stores.js';

const CLIENT = 3;
const AGO = 3 * 60_000;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`calls through the proxy: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('counts each call once whoever traced it, in any arrival order', async () => {
      const s = await openAt(await fresh());
      const at = { tool: 'read_file', agoMs: AGO };
      // Proxy only (a server nobody instrumented): its row is the call.
      await writeSpans(s, [callSpan({ trace: 1, span: 1, proxy: true, code: 'FAILED', ...at })]);
      // Agent + proxy: the proxy row is the agent's server row.
      await writeSpans(s, [callSpan({ trace: 2, span: 1, kind: CLIENT, ...at })]);
      await writeSpans(s, [callSpan({ trace: 2, span: 2, parent: 1, proxy: true, ...at })]);
      // Proxy + instrumented server, the server's batch first: the proxy row is paired when it comes.
      await writeSpans(s, [
        callSpan({ trace: 3, span: 2, parent: 1, code: 'INVALID_OUTPUT', ...at }),
      ]);
      await writeSpans(s, [
        callSpan({ trace: 3, span: 1, proxy: true, code: 'INVALID_OUTPUT', ...at }),
      ]);
      // Agent + proxy + server, all in one batch.
      await writeSpans(s, [
        callSpan({ trace: 4, span: 1, kind: CLIENT, code: 'tool_error', ...at }),
        callSpan({ trace: 4, span: 2, parent: 1, proxy: true, code: 'INVALID_OUTPUT', ...at }),
        callSpan({ trace: 4, span: 3, parent: 2, code: 'INVALID_OUTPUT', ...at }),
      ]);
      const now = nowNs();
      for (const [since, until] of [
        [now - HOUR_NS, now + HOUR_NS],
        [now - 5n * 60_000_000_000n + 1n, now],
      ] as const) {
        const [any] = await readTools(s, since, until, 'read_file');
        expect(any).toMatchObject({ calls: 4, errors: 3, codes: { FAILED: 1, INVALID_OUTPUT: 2 } });
        const [server] = await readTools(s, since, until, 'read_file', 'server');
        expect(server).toMatchObject({ calls: 4, errors: 3 });
        const series = await readSeries(s, since, until, 60_000, 'read_file', 'any');
        expect(series.points.reduce((n, p) => n + p.calls, 0)).toBe(4);
      }
      const page = await readCalls(s, {
        sinceNs: now - HOUR_NS,
        untilNs: now + HOUR_NS,
        limit: 50,
      });
      // Span ids are hex of trace * 1000 + span (spans.ts).
      const ids = (c: { spanId: string; proxy: boolean }) => {
        const n = Number.parseInt(c.spanId, 16);
        return `${Math.floor(n / 1000)}.${n % 1000}${c.proxy ? ' proxy' : ''}`;
      };
      // The counted rows: the lone proxy, the proxy in front of nobody else, and the two servers.
      expect(page.calls.map(ids).sort()).toEqual(['1.1 proxy', '2.2 proxy', '3.2', '4.3']);
      const server = await readCalls(s, {
        sinceNs: now - HOUR_NS,
        untilNs: now + HOUR_NS,
        limit: 50,
        side: 'server',
      });
      expect(server.calls.filter((c) => c.proxy && c.paired)).toEqual([]);
    });

    it('finds a loop of calls through the proxy once, counting each call from one row', async () => {
      const s = await openAt(await fresh());
      // Three identical failing calls, each traced by the proxy and by the server behind it.
      for (let i = 0; i < 3; i++)
        await writeSpans(s, [
          callSpan({
            trace: 9,
            span: 10 * i + 1,
            proxy: true,
            input: 'abcdabcdabcdabcd',
            code: 'FAILED',
          }),
          callSpan({
            trace: 9,
            span: 10 * i + 2,
            parent: 10 * i + 1,
            input: 'abcdabcdabcdabcd',
            code: 'FAILED',
          }),
        ]);
      const now = nowNs();
      const flags = await flagsOf(s, now - HOUR_NS, now + HOUR_NS, { kind: 'identical_retry' });
      expect(flags.map((f) => f.count)).toEqual([3]);
    });
  });
}
