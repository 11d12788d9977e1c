// Flags read at query time, dated from the calls that prove them and linking those calls, on every backend: a
// schema flag from the first and newest call of its versions in the window (not from when a contract was first
// served), a size flag from its first crossing call even when that is not among the newest listed.
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import type { Flag } from '../../src/detectors/flag.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { BACKENDS } from '../backends.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const MINUTE = 60_000;
const iso = (s: NormalizedSpan) => new Date(Number(s.startNs / 1_000_000n)).toISOString();

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`flag dates: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('dates schema and size flags from the calls they link', async () => {
      const s = await openAt(await fresh());
      const at = (trace: number, agoMin: number, o: Parameters<typeof callSpan>[0] | object = {}) =>
        callSpan({ trace, span: 1, agoMs: agoMin * MINUTE, ...o });
      // get_order version 1, served with contract A three hours ago and again in the window, then with B.
      const silent = [
        at(1, 180, { schemaHash: 'aaaaaaaaaaaaaaaa' }),
        at(2, 30, { schemaHash: 'aaaaaaaaaaaaaaaa' }),
        at(3, 20, { schemaHash: 'bbbbbbbbbbbbbbbb' }),
        at(4, 10, { schemaHash: 'bbbbbbbbbbbbbbbb' }),
      ];
      // catalogue versions 1 and 2 live side by side for 45 minutes.
      const skew = [50, 45, 30, 25, 10, 5].map((ago, i) =>
        at(10 + i, ago, {
          tool: 'catalogue',
          version: String(1 + (i % 2)),
          schemaHash: i % 2 ? 'dddddddddddddddd' : 'cccccccccccccccc',
        }),
      );
      // order_history: version 1 small, then version 2 over the budget in 22 calls (the newest 20 are listed).
      const sized = [
        ...[40, 39, 38, 37, 36].map((ago, i) =>
          at(30 + i, ago, { tool: 'order_history', version: '1' }),
        ),
        ...Array.from({ length: 22 }, (_, i) =>
          at(40 + i, 30 - i, { tool: 'order_history', version: '2' }),
        ),
      ];
      for (const [i, x] of sized.entries()) {
        // What the result took: v1 100 tokens, v2 12,000.
        x.attributes['toolscope.output.bytes'] = i < 5 ? 400 : 48_000;
        x.attributes['toolscope.output.tokens'] = i < 5 ? 100 : 12_000;
      }
      await writeSpans(s, [...silent, ...skew, ...sized]);
      const flags = await flagsOf(
        s,
        nowNs() - 60n * 60_000_000_000n,
        nowNs() + 60_000_000_000n,
        {},
      );
      const one = (kind: Flag['kind']) => {
        const found = flags.filter((f) => f.kind === kind);
        expect(found, kind).toHaveLength(1);
        return found[0] as Flag;
      };

      // From the first call of the version in the window (not three hours ago) to its newest, both linked.
      const change = one('silent_schema_change');
      expect([change.firstSeen, change.lastSeen]).toEqual([
        iso(silent[1] as NormalizedSpan),
        iso(silent[3] as NormalizedSpan),
      ]);
      expect(change.evidence.traceIds?.slice(0, 2)).toEqual([traceIdOf(2), traceIdOf(4)]);

      const versions = one('version_skew');
      expect([versions.firstSeen, versions.lastSeen]).toEqual([
        iso(skew[0] as NormalizedSpan),
        iso(skew[5] as NormalizedSpan),
      ]);
      expect(versions.evidence.traceIds?.slice(0, 2)).toEqual([traceIdOf(10), traceIdOf(15)]);

      const v2 = sized.slice(5);
      const firstBig = v2[0] as NormalizedSpan;
      const newestBig = v2.at(-1) as NormalizedSpan;
      const oversized = one('oversized_result');
      expect([oversized.firstSeen, oversized.lastSeen]).toEqual([iso(firstBig), iso(newestBig)]);
      expect(oversized.evidence.traceIds).toHaveLength(21);
      expect(oversized.evidence.traceIds).toContain(traceIdOf(40));
      expect(
        oversized.evidence.spanIds?.[oversized.evidence.traceIds?.indexOf(traceIdOf(40)) ?? -1],
      ).toBe(firstBig.spanId);

      const growth = one('result_growth');
      expect([growth.firstSeen, growth.lastSeen]).toEqual([iso(firstBig), iso(newestBig)]);
      expect(growth.evidence.traceIds).toEqual([traceIdOf(61), traceIdOf(40)]);
      expect(growth.evidence.spanIds).toEqual([newestBig.spanId, firstBig.spanId]);
    });
  });
}
