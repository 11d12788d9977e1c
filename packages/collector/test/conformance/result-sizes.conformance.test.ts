// What results cost, on every backend: per tool and version, p50/p95/max of result bytes and tokens
// read from the rollups (whole hours and minutes) and from raw calls at the window's edges alike; a call traced
// on both sides counted once; oversized_result with the calls that crossed the budget, result_growth when a
// version's p95 at least doubles; quiet for a small growth and under the budget.
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { BACKENDS } from '../backends.js';
import { readTools } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, nowNs, traceIdOf } from './spans.js';
import { readingWith, useStores } from './stores.js';

const MINUTE_MS = 60_000;

function sized(
  spec: Parameters<typeof callSpan>[0],
  bytes: number,
  tokens: number,
): NormalizedSpan {
  const s = callSpan(spec);
  s.attributes['toolscope.output.bytes'] = bytes;
  s.attributes['toolscope.output.tokens'] = tokens;
  return s;
}

/** A tool's history: v1 paged (about 560 tokens), then v2 returning everything (about 21,600). */
function history(): NormalizedSpan[] {
  const spans: NormalizedSpan[] = [];
  for (let i = 0; i < 6; i++)
    spans.push(
      sized(
        { trace: 100 + i, span: 1, tool: 'order_history', version: '1', agoMs: 150 * MINUTE_MS },
        1395 + i,
        561 + i,
      ),
    );
  for (let i = 0; i < 6; i++)
    spans.push(
      sized(
        // The last one lands inside the window's last, partial minute: read from the raw calls.
        {
          trace: 200 + i,
          span: 1,
          tool: 'order_history',
          version: '2',
          agoMs: i === 5 ? 1_000 : 30 * MINUTE_MS,
        },
        53_531 + i * 100,
        21_595 + i * 40,
      ),
    );
  return spans;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`result sizes: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);
    const window = () => ({ since: nowNs() - 4n * HOUR_NS, until: nowNs() + 1n });

    it('gives p50/p95/max per tool and version, and flags the oversized and grown results', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, history());
      // A small tool that grows from 40 to 90 tokens: doubled, but not worth a flag.
      await writeSpans(s, [
        ...Array.from({ length: 5 }, (_, i) =>
          sized(
            { trace: 300 + i, span: 1, tool: 'ping', version: '1', agoMs: 90 * MINUTE_MS },
            120,
            40,
          ),
        ),
        ...Array.from({ length: 5 }, (_, i) =>
          sized(
            { trace: 310 + i, span: 1, tool: 'ping', version: '2', agoMs: 20 * MINUTE_MS },
            260,
            90,
          ),
        ),
      ]);
      const { since, until } = window();
      const [h] = await readTools(s, since, until, 'order_history');
      expect(h?.resultSizes.map((v) => [v.version, v.measured])).toEqual([
        ['1', 6],
        ['2', 6],
      ]);
      const [v1, v2] = h?.resultSizes ?? [];
      expect(v1?.bytesMax).toBe(1400);
      expect(v1?.tokensMax).toBe(566);
      expect(v1?.tokensP50).toBeGreaterThanOrEqual(Math.floor(561 * 0.975));
      expect(v1?.tokensP50).toBeLessThanOrEqual(566);
      expect(v2?.bytesMax).toBe(54_031);
      expect(v2?.tokensP95).toBeGreaterThanOrEqual(Math.floor(21_795 * 0.975));
      expect(v2?.tokensP95).toBeLessThanOrEqual(21_795);
      // Over all versions: half the calls are small, so p50 is v1's, p95 v2's.
      expect(h?.resultTokensP50).toBeLessThan(600);
      expect(h?.resultTokensP95).toBeGreaterThan(21_000);
      expect(h?.resultBytesMax).toBe(54_031);

      const flags = await flagsOf(s, since, until, {});
      const oversized = flags.filter((f) => f.kind === 'oversized_result');
      expect(oversized.map((f) => f.tool)).toEqual(['order_history']);
      const [o] = oversized;
      expect(o?.count).toBe(6);
      expect(o?.evidence.budget).toBe(10_000);
      // Newest first: the call in the last minute leads.
      expect(o?.traceId).toBe(traceIdOf(205));
      expect(o?.evidence.traceIds).toHaveLength(6);
      expect(o?.evidence.resultTokens?.[0]).toBe(21_795);
      const growth = flags.filter((f) => f.kind === 'result_growth');
      expect(growth.map((f) => [f.tool, f.version, f.evidence.versions])).toEqual([
        ['order_history', '2', ['1', '2']],
      ]);
      expect(growth[0]?.traceId).toBe(traceIdOf(205));
      expect(growth[0]?.evidence.ratio).toBeGreaterThan(30);
      expect(growth[0]?.summary).toContain('order_history version 2 returns');
    });

    it('counts a call traced on both sides once, and takes the budget from the thresholds', async () => {
      const s = await openAt(await fresh(), readingWith({ resultTokenBudget: 500 }));
      const server = sized({ trace: 400, span: 2, parent: 1, kind: 2, tool: 'lookup' }, 2000, 700);
      const client = sized({ trace: 400, span: 1, kind: 3, tool: 'lookup' }, 2000, 700);
      await writeSpans(s, [client]);
      await writeSpans(s, [server]);
      const { since, until } = window();
      const [t] = await readTools(s, since, until, 'lookup');
      expect(t?.calls).toBe(1);
      expect(t?.resultSizes.map((v) => v.measured)).toEqual([1]);
      const flags = await flagsOf(s, since, until, { kind: 'oversized_result' });
      expect(flags.map((f) => [f.tool, f.count, f.evidence.budget])).toEqual([['lookup', 1, 500]]);
    });

    it('leaves tools without sizes out of the distributions and the flags', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, [callSpan({ trace: 500, span: 1, tool: 'unsized' })]);
      const { since, until } = window();
      const [t] = await readTools(s, since, until, 'unsized');
      expect([t?.resultBytesP50, t?.resultTokensP95, t?.resultSizes]).toEqual([null, null, []]);
      expect((await flagsOf(s, since, until, {})).filter((f) => f.tool === 'unsized')).toEqual([]);
    });
  });
}
