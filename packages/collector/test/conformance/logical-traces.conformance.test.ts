// One logical call whose parts are in separate traces (decision 0054), on every backend: a client that sends no
// trace context makes each leg and each `tasks/get` poll the root of a trace of its own (or a child of a span of
// the serving process), and the parts reach the store in separate batches. The legs and the polls are still one
// call in /api/calls, the tool statistics and loop detection, with no loop flag from them, and each trace page
// reads the stored join: the holder with the whole call, each part naming the span and trace that hold it.
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import type { Storage } from '../../src/storage/contract.js';
import { BACKENDS } from '../backends.js';
import { readCalls, readTools, readTraceCalls } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { creating, leg, poll, STATE } from './logical-spans.js';
import { HOUR_NS, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const ROUND_2 = '6b6b6b6b6b6b6b6b';

/** The counted calls of `tool` (exactly one), with its statistics over the hour agreeing. */
async function oneCall(s: Storage, tool: string) {
  const now = nowNs();
  const page = await readCalls(s, { sinceNs: now - HOUR_NS, untilNs: now + HOUR_NS, limit: 50 });
  const calls = page.calls.filter((c) => c.tool === tool);
  expect(calls).toHaveLength(1);
  const [stats] = await readTools(s, now - HOUR_NS, now + HOUR_NS, tool);
  expect(stats?.calls).toBe(1);
  // The raw rows of a range's edges (no whole minute inside it) say the same.
  const [edge] = await readTools(s, now - 5n * 60_000_000_000n + 1n, now, tool);
  expect(edge?.calls).toBe(1);
  return calls[0] as (typeof calls)[number];
}

/** The reading of one span on its trace's page. */
async function spanCall(s: Storage, span: NormalizedSpan) {
  const spans = await readTraceCalls(s, span.traceId);
  return spans.find((x) => x.spanId === span.spanId)?.call;
}

const noFlags = async (s: Storage) => {
  const now = nowNs();
  expect(await flagsOf(s, now - HOUR_NS, now + HOUR_NS, {})).toEqual([]);
};

/** Three legs of one booking, each the root of its own trace (`base`, +1, +2), in one conversation. */
const threeLegs = (base: number, tool: string) => [
  leg(
    { trace: base, span: 1, tool, conversation: `conv-${tool}`, durationMs: 3 },
    { 'toolscope.call.legs': 1, 'toolscope.call.awaits': STATE },
  ),
  leg(
    { trace: base + 1, span: 1, tool, conversation: `conv-${tool}`, agoMs: 3 * 60_000 - 20 },
    { 'toolscope.call.legs': 1, 'toolscope.call.resumes': STATE, 'toolscope.call.awaits': ROUND_2 },
  ),
  leg(
    {
      trace: base + 2,
      span: 1,
      tool,
      conversation: `conv-${tool}`,
      agoMs: 3 * 60_000 - 40,
      code: 'REJECTED',
    },
    { 'toolscope.call.legs': 1, 'toolscope.call.resumes': ROUND_2 },
  ),
];

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`one logical call across traces: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('three legs in three traces, in separate batches in any order, are one call', async () => {
      const s = await openAt(await fresh());
      // The first leg first; the last first and the first last (the holder then changes twice); all at once.
      const orders = [[[0], [1], [2]], [[2], [1], [0]], [[1], [2], [0]], [[0, 1, 2]]];
      for (const [n, batches] of orders.entries()) {
        const tool = `book_${n}`;
        const legs = threeLegs(100 + 10 * n, tool);
        for (const b of batches)
          await writeSpans(
            s,
            b.map((i) => legs[i] as NormalizedSpan),
          );
        const [first, , last] = legs as [NormalizedSpan, NormalizedSpan, NormalizedSpan];
        expect(await oneCall(s, tool)).toMatchObject({
          traceId: first.traceId,
          spanId: first.spanId,
          legs: 3,
          parts: 3,
          complete: true,
          code: 'REJECTED',
          durationMs: Number(last.endNs - first.startNs) / 1e6,
        });
        // Each trace page reads the stored join: the holder whole, each part naming it, across traces.
        expect(await spanCall(s, first)).toMatchObject({ legs: 3, parts: 3, joinedTo: null });
        for (const part of legs.slice(1))
          expect(await spanCall(s, part)).toMatchObject({
            legs: 1,
            joinedTo: first.spanId,
            joinedToTraceId: first.traceId,
          });
      }
      // Read as three calls of one input in one conversation, one failing, they would be an identical retry.
      await noFlags(s);
    });

    it('legs under spans of their own processes, in separate traces, are one call', async () => {
      const s = await openAt(await fresh());
      // Each leg a child of the serving process's HTTP span: parents in two traces say nothing of each other.
      const legs = [
        leg(
          { trace: 200, span: 2, parent: 1 },
          { 'toolscope.call.legs': 1, 'toolscope.call.awaits': STATE },
        ),
        leg(
          { trace: 201, span: 2, parent: 1, agoMs: 3 * 60_000 - 40 },
          { 'toolscope.call.legs': 1, 'toolscope.call.resumes': STATE },
        ),
      ];
      await writeSpans(s, [legs[1] as NormalizedSpan]);
      await writeSpans(s, [legs[0] as NormalizedSpan]);
      expect(await oneCall(s, 'book')).toMatchObject({ legs: 2, parts: 2, complete: true });
    });

    it('a task polled at its interval, each poll its own trace and batch, is one call', async () => {
      const s = await openAt(await fresh());
      const orders = ['head first', 'polls first'];
      for (const [n, order] of orders.entries()) {
        const tool = `report_${n}`;
        const task = `${n}7a7a7a7a7a7a7a7`.slice(0, 16);
        const head = creating(300 + 10 * n, 1, tool, task);
        const polls = [1, 2, 3, 4, 5, 6].map((k) =>
          poll(301 + 10 * n + (k % 3), k, 25 * k, k < 6 ? 'working' : 'completed', task),
        );
        if (order === 'head first') await writeSpans(s, [head]);
        for (const p of polls) await writeSpans(s, [p]);
        if (order === 'polls first') await writeSpans(s, [head]);
        expect(await oneCall(s, tool)).toMatchObject({
          spanId: head.spanId,
          parts: 7,
          task: { polls: 6, pollIntervalMs: 25, status: 'completed' },
          complete: true,
          code: null,
        });
        for (const p of polls)
          expect(await spanCall(s, p)).toMatchObject({
            joinedTo: head.spanId,
            joinedToTraceId: head.traceId,
          });
      }
      // No call of no tool, and no polling flag from a task polled at its interval.
      const now = nowNs();
      const all = await readCalls(s, { sinceNs: now - HOUR_NS, untilNs: now + HOUR_NS, limit: 50 });
      expect(all.calls.map((c) => c.tool).sort()).toEqual(['report_0', 'report_1']);
      await noFlags(s);
    });

    it('a client polling far faster than the interval, each poll its own trace, is flagged', async () => {
      const s = await openAt(await fresh());
      const head = creating(400, 1);
      // Interval 1 s, six polls 25 ms apart, each a trace of its own and a batch of its own.
      const polls = [1, 2, 3, 4, 5, 6].map((k) =>
        poll(400 + k, 1, 25 * k, k < 6 ? 'working' : 'completed', undefined, true),
      );
      await writeSpans(s, [head]);
      for (const p of polls) await writeSpans(s, [p]);
      const now = nowNs();
      const flags = await flagsOf(s, now - HOUR_NS, now + HOUR_NS, {});
      expect(flags.map((f) => f.kind)).toEqual(['polling_faster_than_interval']);
      expect(flags[0]).toMatchObject({
        tool: 'report',
        traceId: traceIdOf(400),
        evidence: { polls: 6, pollIntervalMs: 1000, spanIds: [head.spanId] },
      });
    });
  });
}
