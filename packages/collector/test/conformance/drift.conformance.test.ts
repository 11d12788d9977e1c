// Input drift through the storage contract on every backend: the failing calls a drift flag reads (newest
// first, the first, each call's conversation or its trace's), one agent's repeats raising no drift, and a drift
// flag dated from the calls it links.
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import { BACKENDS } from '../backends.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const MINUTE_NS = 60_000_000_000n;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`input drift: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('reads the failing calls, counts one agent once, and dates a drift flag from its calls', async () => {
      const s = await openAt(await fresh());
      const refused = { code: 'INVALID_INPUT', durationMs: 2 };
      const spans = [
        // One client behind the proxy: the same refused input three times, a trace per call.
        ...[1, 2, 3].map((t, i) =>
          callSpan({
            trace: t,
            span: 1,
            tool: 'get-sum',
            input: 'ab'.repeat(8),
            agoMs: 90_000 - i * 1000,
            ...refused,
          }),
        ),
        // One conversation that only another span of each trace names: its refused calls are one agent's.
        ...[21, 22, 23].flatMap((t, i) => [
          callSpan({ trace: t, span: 1, tool: 'get-diff', agoMs: 80_000 - i * 1000, ...refused }),
          callSpan({
            trace: t,
            span: 2,
            tool: 'plan',
            conversation: 'conv-d',
            agoMs: 79_000 - i * 1000,
          }),
        ]),
        // Three agents: traces of their own, each its own input.
        ...[11, 12, 13].map((t, i) =>
          callSpan({ trace: t, span: 1, tool: 'get-prod', agoMs: 70_000 - i * 1000, ...refused }),
        ),
      ];
      await writeSpans(s, spans);
      const since = nowNs() - 60n * MINUTE_NS;
      const until = nowNs() + MINUTE_NS;

      const prod = await s.failingCalls('get-prod', 'INVALID_INPUT', since, until);
      const starts = spans.filter((x) => x.attributes['gen_ai.tool.name'] === 'get-prod');
      expect(prod.newest.map((c) => c.traceId)).toEqual([
        traceIdOf(13),
        traceIdOf(12),
        traceIdOf(11),
      ]);
      expect(prod.newest.map((c) => c.startNs)).toEqual(starts.map((x) => x.startNs).reverse());
      expect(prod.first).toMatchObject({
        traceId: traceIdOf(11),
        spanId: starts[0]?.spanId,
        conversationId: null,
        startNs: starts[0]?.startNs,
      });
      const diff = await s.failingCalls('get-diff', 'INVALID_INPUT', since, until);
      expect(diff.newest.map((c) => c.conversationId)).toEqual(['conv-d', 'conv-d', 'conv-d']);
      expect(await s.failingCalls('plan', 'INVALID_INPUT', since, until)).toEqual({
        newest: [],
        first: null,
      });

      const drift = await flagsOf(s, since, until, { kind: 'input_drift' });
      expect(drift.map((f) => f.tool)).toEqual(['get-prod']);
      const iso = (ns: bigint | undefined) =>
        new Date(Number((ns ?? 0n) / 1_000_000n)).toISOString();
      expect(drift[0]).toMatchObject({
        count: 3,
        firstSeen: iso(starts[0]?.startNs),
        lastSeen: iso(starts[2]?.startNs),
        evidence: {
          traceIds: [traceIdOf(11), traceIdOf(13), traceIdOf(12)],
          spanIds: [starts[0]?.spanId, starts[2]?.spanId, starts[1]?.spanId],
        },
      });
    });
  });
}
