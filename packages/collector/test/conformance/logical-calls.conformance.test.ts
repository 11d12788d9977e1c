// One logical call whose parts several processes traced (docs/span-contract.md, "One logical call"), on every
// backend: the leg that waited and the leg that resumed it, a task's creating call and its `tasks/get` polls,
// in one batch or several, in either order, are one call in /api/calls, the tool statistics (the rollups of
// whole minutes and the raw rows of a range's edges) and loop detection, with the legs and polls summed and the
// last part's outcome; a task polled far faster than its interval is flagged. The spans carry what the adapters
// and the proxy write (test/e2e/logical-parts.test.ts sends the adapters' own over OTLP).
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import type { Storage } from '../../src/storage/contract.js';
import { BACKENDS } from '../backends.js';
import { readCalls, readSeries, readTools, readTraceCalls } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { AGO, CLIENT, creating, INPUT, leg, poll, STATE, TASK } from './logical-spans.js';
import { callSpan, HOUR_NS, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const windows = () => {
  const now = nowNs();
  return [
    [now - HOUR_NS, now + HOUR_NS],
    [now - 5n * 60_000_000_000n + 1n, now],
  ] as const;
};

/** A trace's spans with the collector's reading of each, as the trace page gets them. */
const traceCalls = (s: Storage, trace: number) => readTraceCalls(s, traceIdOf(trace));

/** The counted calls of a trace, and the tool's statistics in a wide and a narrow range. */
async function oneCall(s: Storage, trace: number, tool: string) {
  const now = nowNs();
  const page = await readCalls(s, { sinceNs: now - HOUR_NS, untilNs: now + HOUR_NS, limit: 50 });
  const calls = page.calls.filter((c) => c.traceId === traceIdOf(trace));
  expect(calls).toHaveLength(1);
  for (const [since, until] of windows()) {
    const [stats] = await readTools(s, since, until, tool);
    expect(stats?.calls, `${tool} calls in [${since}, ${until})`).toBe(1);
    const series = await readSeries(s, since, until, 60_000, tool, 'any');
    expect(series.points.reduce((n, p) => n + p.calls, 0)).toBe(1);
    const [server] = await readTools(s, since, until, tool, 'server');
    expect(server?.calls).toBe(1);
  }
  return calls[0] as (typeof calls)[number];
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`one logical call from its parts: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('two legs of a booking, in any arrival order', async () => {
      const s = await openAt(await fresh());
      const orders = [
        // The waiting leg first, in batches of its own; the resuming leg first (a waiting leg ends at its idle
        // timeout, after the next leg another process served); both in one batch.
        [[0], [1]],
        [[1], [0]],
        [[0, 1]],
      ];
      for (const [n, batches] of orders.entries()) {
        const trace = 10 + n;
        const tool = `book_${n}`;
        // The agent's client span (1) saw the call whole; each server process saw one leg under it.
        const parts = [
          leg(
            { trace, tool, span: 2, parent: 1, durationMs: 3 },
            { 'toolscope.call.legs': 1, 'toolscope.call.awaits': STATE },
          ),
          leg(
            { trace, tool, span: 3, parent: 1, agoMs: AGO - 40, durationMs: 4, code: 'REJECTED' },
            { 'toolscope.call.legs': 1, 'toolscope.call.resumes': STATE },
          ),
        ];
        const client = callSpan({ trace, span: 1, tool, input: INPUT, kind: CLIENT, agoMs: AGO });
        await writeSpans(s, [client]);
        for (const b of batches)
          await writeSpans(
            s,
            b.map((i) => parts[i] as NormalizedSpan),
          );
        const call = await oneCall(s, trace, tool);
        expect(call).toMatchObject({
          spanId: parts[0]?.spanId,
          legs: 2,
          parts: 2,
          complete: true,
          code: 'REJECTED',
          side: 'server',
        });
        // From the first leg's start to the last leg's end (about 44 ms).
        const [first, last] = parts as [NormalizedSpan, NormalizedSpan];
        expect(call.durationMs).toBe(Number(last.endNs - first.startNs) / 1e6);
        for (const [since, until] of windows()) {
          const [stats] = await readTools(s, since, until, tool);
          expect(stats).toMatchObject({ errors: 1, codes: { REJECTED: 1 } });
        }
        // The trace page says the same: the second leg is a part of the first's call.
        const bySpan = new Map((await traceCalls(s, trace)).map((sp) => [sp.spanId, sp.call]));
        expect(bySpan.get(parts[0]?.spanId as string)).toMatchObject({
          legs: 2,
          parts: 2,
          joinedTo: null,
        });
        expect(bySpan.get(parts[1]?.spanId as string)).toMatchObject({
          joinedTo: parts[0]?.spanId,
          legs: 1,
        });
      }
      // Three legs that three processes served, the middle one stored last, the last refused: one call of three
      // legs. Read as three calls of one input, one failing, they would be an identical retry.
      const ROUND_2 = '6b6b6b6b6b6b6b6b';
      const chain = [
        leg(
          { trace: 13, tool: 'book_3', span: 1, durationMs: 3 },
          { 'toolscope.call.legs': 1, 'toolscope.call.awaits': STATE },
        ),
        leg(
          { trace: 13, tool: 'book_3', span: 2, agoMs: AGO - 20, durationMs: 3 },
          {
            'toolscope.call.legs': 1,
            'toolscope.call.resumes': STATE,
            'toolscope.call.awaits': ROUND_2,
          },
        ),
        leg(
          { trace: 13, tool: 'book_3', span: 3, agoMs: AGO - 40, code: 'REJECTED' },
          { 'toolscope.call.legs': 1, 'toolscope.call.resumes': ROUND_2 },
        ),
      ];
      for (const i of [0, 2, 1]) await writeSpans(s, [chain[i] as NormalizedSpan]);
      expect(await oneCall(s, 13, 'book_3')).toMatchObject({
        spanId: chain[0]?.spanId,
        legs: 3,
        parts: 3,
        code: 'REJECTED',
        complete: true,
      });
      const now = nowNs();
      expect(await flagsOf(s, now - HOUR_NS, now + HOUR_NS, {})).toEqual([]);
    });

    it('a task and its six polls, in any arrival order', async () => {
      const s = await openAt(await fresh());
      const orders = [
        // The polls first, the creating call last (it ends as a part after ten poll intervals without a poll
        // here); the creating call first, then the polls (its row extended); all in one batch.
        [[1, 2, 3], [4, 5, 6], [0]],
        [[0], [1, 2, 3], [4, 5, 6]],
        [[0, 1, 2, 3, 4, 5, 6]],
      ];
      for (const [n, batches] of orders.entries()) {
        const trace = 20 + n;
        const tool = `report_${n}`;
        const task = `${n}${TASK.slice(1)}`;
        const spans = [
          creating(trace, 1, tool, task),
          ...[1, 2, 3, 4, 5, 6].map((k) =>
            poll(trace, 1 + k, 25 * k, k < 6 ? 'working' : 'failed', task),
          ),
        ];
        for (const b of batches)
          await writeSpans(
            s,
            b.map((i) => spans[i] as NormalizedSpan),
          );
        const call = await oneCall(s, trace, tool);
        expect(call).toMatchObject({
          spanId: spans[0]?.spanId,
          tool,
          parts: 7,
          legs: 1,
          task: { polls: 6, pollIntervalMs: 25, status: 'failed' },
          complete: true,
          code: '-32603',
        });
        for (const [since, until] of windows()) {
          const [stats] = await readTools(s, since, until, tool);
          expect(stats).toMatchObject({ errors: 1, codes: { '-32603': 1 } });
        }
      }
      // No call of no tool, and no loop from the polls.
      const now = nowNs();
      const all = await readCalls(s, { sinceNs: now - HOUR_NS, untilNs: now + HOUR_NS, limit: 50 });
      expect(all.calls.map((c) => c.tool).sort()).toEqual(['report_0', 'report_1', 'report_2']);
      expect(await flagsOf(s, now - HOUR_NS, now + HOUR_NS, {})).toEqual([]);
    });

    it('a task whose polls came from a client ignoring its interval is flagged with what it saw', async () => {
      const s = await openAt(await fresh());
      // Interval 1 s, six polls 25 ms apart; the creating process saw none of them.
      const head = creating(3, 1);
      await writeSpans(s, [
        ...[1, 2, 3, 4, 5, 6].map((k) =>
          poll(3, 1 + k, 25 * k, k < 6 ? 'working' : 'completed', TASK, true),
        ),
      ]);
      await writeSpans(s, [head]);
      const now = nowNs();
      const flags = await flagsOf(s, now - HOUR_NS, now + HOUR_NS, {});
      expect(flags.map((f) => f.kind)).toEqual(['polling_faster_than_interval']);
      expect(flags[0]).toMatchObject({
        tool: 'report',
        count: 6,
        traceId: traceIdOf(3),
        evidence: { polls: 6, pollIntervalMs: 1000, spanIds: [head.spanId] },
      });
      expect(flags[0]?.evidence.observedPollIntervalMs).toBeLessThan(100);
    });

    it('a proxy part and a server part are sides of a call, never parts of one another', async () => {
      const s = await openAt(await fresh());
      // The proxy saw the whole call (one span); the server behind it saw it in two legs, under the proxy's span.
      await writeSpans(s, [
        leg({ trace: 4, span: 1, proxy: true, durationMs: 50 }, { 'toolscope.call.legs': 2 }),
        leg(
          { trace: 4, span: 2, parent: 1 },
          { 'toolscope.call.legs': 1, 'toolscope.call.awaits': STATE },
        ),
      ]);
      await writeSpans(s, [
        leg(
          { trace: 4, span: 3, parent: 1, agoMs: AGO - 40 },
          { 'toolscope.call.legs': 1, 'toolscope.call.resumes': STATE },
        ),
      ]);
      const call = await oneCall(s, 4, 'book');
      expect(call).toMatchObject({ proxy: false, legs: 2, parts: 2 });
    });

    it('a poll whose call is not stored counts nowhere, and a leg resuming a call not stored is not complete', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, [poll(5, 2, 25, 'working')]);
      await writeSpans(s, [
        leg({ trace: 6, span: 1 }, { 'toolscope.call.legs': 1, 'toolscope.call.resumes': STATE }),
      ]);
      const now = nowNs();
      const page = await readCalls(s, {
        sinceNs: now - HOUR_NS,
        untilNs: now + HOUR_NS,
        limit: 50,
      });
      expect(page.calls.map((c) => [c.tool, c.complete, c.parts])).toEqual([['book', false, 1]]);
      const [part] = await traceCalls(s, 5);
      expect(part?.call).toMatchObject({ tool: '', joinedTo: null, complete: false });
    });
  });
}
