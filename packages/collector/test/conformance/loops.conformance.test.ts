// The loop kinds beyond one repeated input, through the storage contract on every backend: a cycle across the
// traces of a conversation flagged once with what it wasted (computed here from the definition), a cycle that
// straddles a retention step, polling without progress, and argument churn.
import { describe, expect, it } from 'vitest';
import { flagsOf as storeFlags } from '../../src/detection/read-flags.js';
import type { Flag } from '../../src/detectors/flag.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { BACKENDS } from '../backends.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, modelSpan, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const MS = 1_000_000n;

/** The span, moved to start at `startNs` and last `ms`. */
function at<T extends NormalizedSpan>(span: T, startNs: bigint, ms: number): T {
  return { ...span, startNs, endNs: startNs + BigInt(ms) * MS };
}

const A = { tool: 'search_docs', input: 'a1a1a1a1a1a1a1a1', outputHash: '0a0a0a0a0a0a0a0a' };
const B = { tool: 'open_doc', input: 'b1b1b1b1b1b1b1b1', outputHash: '0b0b0b0b0b0b0b0b' };

/** Round `r` of the A → B cycle in trace `trace`: A at +0 ms (100 ms), B at +200 ms (100 ms), 10 result tokens each. */
function round(trace: number, base: bigint, r: number, conversation?: string): NormalizedSpan[] {
  const t0 = base + BigInt(r * 1000) * MS;
  const extra = conversation ? { conversation } : {};
  return [
    at(callSpan({ trace, span: 10 * r + 1, ...A, resultTokens: 10, ...extra }), t0, 100),
    at(
      callSpan({ trace, span: 10 * r + 2, ...B, resultTokens: 10, ...extra }),
      t0 + 200n * MS,
      100,
    ),
  ];
}

/**
 * The shares of the A → B cycle's wasted calls (rounds 2 and 3), from the definition: each from the end of the
 * call before it to its own end (A: 800 ms from the previous B's end, B: 200 ms), its 10 result tokens, and the
 * model call of the round before (at +400 ms of it) in A's share.
 */
function expectShares(cycle: Flag) {
  expect(cycle.evidence.wasted?.spans).toEqual(
    (cycle.evidence.spanIds ?? []).slice(2).map((spanId, i) => ({
      spanId,
      ms: i % 2 === 0 ? 800 : 200,
      resultTokens: 10,
      modelTokens: i % 2 === 0 ? 1050 : 0,
    })),
  );
}

/** A model call in trace `trace` at `startNs`, 300 ms, 1,000 tokens in and 50 out. */
const model = (trace: number, span: number, startNs: bigint) =>
  at(
    modelSpan({ trace, span, agoMs: 0, durationMs: 300, inputTokens: 1000, outputTokens: 50 }),
    startNs,
    300,
  );

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`loop kinds: ${backend.name}`, () => {
    const { fresh, openAt, window } = useStores(backend);
    const flagsOf = async (s: Awaited<ReturnType<typeof openAt>>) => {
      const { since, until } = window();
      return storeFlags(s, since, until, {});
    };

    it('flags a cycle over three traces of a conversation once, with its rounds and what it wasted', async () => {
      const s = await openAt(await fresh());
      const base = nowNs() - 60_000n * MS;
      // Three rounds, one trace each, one batch each; a model call after each round's calls, and one before
      // the cycle began.
      await writeSpans(s, [model(40, 90, base - 500n * MS)]);
      for (let r = 0; r < 3; r++)
        await writeSpans(s, [
          ...round(41 + r, base, r, 'conv-cycle'),
          model(41 + r, 91, base + BigInt(r * 1000 + 400) * MS),
        ]);
      const flags = (await flagsOf(s)).filter(
        (f) =>
          f.conversationId === 'conv-cycle' || [41, 42, 43].some((t) => f.traceId === traceIdOf(t)),
      );
      expect(flags.map((f) => f.kind)).toEqual(['tool_cycle']);
      const [cycle] = flags as [Flag];
      expect(cycle.count).toBe(6);
      expect(cycle.evidence.cycle).toEqual([
        { tool: A.tool, inputHash: A.input },
        { tool: B.tool, inputHash: B.input },
      ]);
      expect(cycle.evidence.rounds).toBe(3);
      expect(cycle.evidence.traceIds?.sort()).toEqual([
        traceIdOf(41),
        traceIdOf(42),
        traceIdOf(43),
      ]);
      // From the definition: the 4 calls after the first round; from its end (B of round 1 ends at +300 ms)
      // to the end of the last call (B of round 3, +2,300 ms); their result tokens; and the model calls that
      // start after +300 ms and before +2,300 ms (those at +400 and +1,400, not the one at +2,400 nor before).
      expect(cycle.evidence.wasted).toMatchObject({
        calls: 4,
        ms: 2000,
        resultTokens: 40,
        modelTokens: 2 * 1050,
      });
      expectShares(cycle);
      expect(cycle.summary).toMatch(/2 more rounds/);
    });

    it('prices a cycle within one trace, no conversation, with the model calls between its rounds', async () => {
      const s = await openAt(await fresh());
      const base = nowNs() - 60_000n * MS;
      for (let r = 0; r < 3; r++)
        await writeSpans(s, [
          ...round(60, base, r),
          model(60, 90 + r, base + BigInt(r * 1000 + 400) * MS),
        ]);
      const flags = (await flagsOf(s)).filter((f) => f.traceId === traceIdOf(60));
      expect(flags.map((f) => f.kind)).toEqual(['tool_cycle']);
      // As above: the model calls at +400 and +1,400 ms fall inside, the one at +2,400 after the last call.
      expect(flags[0]?.evidence.wasted).toMatchObject({
        calls: 4,
        ms: 2000,
        resultTokens: 40,
        modelTokens: 2 * 1050,
      });
      expectShares(flags[0] as Flag);
    });

    it('still flags a cycle whose last round comes after a retention step', async () => {
      const s = await openAt(await fresh());
      const base = nowNs() - 60_000n * MS;
      await writeSpans(s, round(50, base, 0));
      await writeSpans(s, round(50, base, 1));
      await writeSpans(s, [callSpan({ trace: 51, span: 1, agoMs: 3 * 3_600_000 })]);
      expect(await s.deleteBefore(nowNs() - 2n * HOUR_NS, 200)).toBe(1);
      await writeSpans(s, round(50, base, 2));
      const flags = (await flagsOf(s)).filter((f) => f.traceId === traceIdOf(50));
      expect(flags.map((f) => [f.kind, f.count])).toEqual([['tool_cycle', 6]]);
    });

    it('flags polling that reads an unchanged answer, and stays quiet when the answer changes', async () => {
      const s = await openAt(await fresh());
      const base = nowNs() - 60_000n * MS;
      for (let i = 0; i < 5; i++) {
        const t = base + BigInt(i * 1000) * MS;
        await writeSpans(s, [
          at(
            callSpan({
              trace: 60,
              span: i + 1,
              input: 'c0c0c0c0c0c0c0c0',
              outputHash: '5a5a5a5a5a5a5a5a',
            }),
            t,
            10,
          ),
          at(
            callSpan({
              trace: 61,
              span: i + 1,
              input: 'c1c1c1c1c1c1c1c1',
              outputHash: `${i}`.repeat(16),
            }),
            t,
            10,
          ),
        ]);
      }
      const flags = await flagsOf(s);
      expect(
        flags.filter((f) => f.traceId === traceIdOf(60)).map((f) => [f.kind, f.count]),
      ).toEqual([['polling_no_progress', 5]]);
      expect(flags.filter((f) => f.traceId === traceIdOf(61))).toEqual([]);
    });

    it('flags an agent that keeps changing the arguments of a call that fails the same way', async () => {
      const s = await openAt(await fresh());
      const base = nowNs() - 60_000n * MS;
      const issues = JSON.stringify([
        { path: 'priority', code: 'invalid_enum_value', message: 'bad' },
      ]);
      for (let i = 0; i < 4; i++)
        await writeSpans(s, [
          at(
            callSpan({
              trace: 70,
              span: i + 1,
              tool: 'create_ticket',
              input: `${i + 1}`.repeat(16),
              code: 'INVALID_INPUT',
              issues,
            }),
            base + BigInt(i * 1000) * MS,
            10,
          ),
        ]);
      const flags = (await flagsOf(s)).filter((f) => f.traceId === traceIdOf(70));
      expect(flags.map((f) => f.kind)).toEqual(['argument_churn']);
      expect(flags[0]?.evidence).toMatchObject({ code: 'INVALID_INPUT', path: 'priority' });
      expect(flags[0]?.evidence.inputHashes).toHaveLength(4);
    });

    it('flags a churn across the traces of a conversation, a late success before it included, and not one a success breaks', async () => {
      const s = await openAt(await fresh());
      const base = nowNs() - 60_000n * MS;
      /** Call `i` of create_ticket in trace `trace` of `conversation`: failing, or a success. */
      const ticket = (conversation: string, trace: number, i: number, fails: boolean) =>
        at(
          callSpan({
            trace,
            span: i + 1,
            tool: 'create_ticket',
            input: `${i + 1}`.repeat(16),
            conversation,
            ...(fails ? { code: 'INVALID_INPUT' } : {}),
          }),
          base + BigInt(i * 1000) * MS,
          10,
        );
      // conv-churn: four failures in a row, one trace and one batch each; the success that came before them
      // arrives after the third, so the counts beside the filter must not take it for a break.
      for (let i = 1; i <= 3; i++) await writeSpans(s, [ticket('conv-churn', 100 + i, i, true)]);
      await writeSpans(s, [ticket('conv-churn', 100, 0, false)]);
      await writeSpans(s, [ticket('conv-churn', 104, 4, true)]);
      // conv-fixed: the same four failures with a success after the second: no run of four.
      for (const [i, fails] of [
        [1, true],
        [2, true],
        [3, false],
        [4, true],
        [5, true],
      ] as const)
        await writeSpans(s, [ticket('conv-fixed', 110 + i, i, fails)]);
      const flags = await flagsOf(s);
      const churns = (c: string) =>
        flags.filter((f) => f.conversationId === c).map((f) => [f.kind, f.count]);
      expect(churns('conv-churn')).toEqual([['argument_churn', 4]]);
      expect(churns('conv-fixed')).toEqual([]);
    });
  });
}
