// The storage conformance suite (Jaeger's pattern): the same specification of the contract, run against every
// backend. Anything the API, CLI, webhook or detectors rely on from storage is asserted here.
import { describe, expect, it } from 'vitest';
import { toolPage } from '../../src/api/tool-page.js';
import { flagsOf } from '../../src/detection/read-flags.js';
import { BACKENDS, execRaw } from '../backends.js';
import { readCalls, readSearch, readSeries, readTools } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const INVALID = JSON.stringify([
  { path: 'customerId', code: 'invalid_type', message: 'expected string' },
]);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`storage contract: ${backend.name}`, () => {
    const { fresh, openAt, window, closedByTest } = useStores(backend);

    it('writes, de-duplicates a re-sent batch, and reads calls, traces, conversations and tools back', async () => {
      const s = await openAt(await fresh());
      const batch = [
        callSpan({ trace: 1, span: 1, conversation: 'conv-a', callId: 'call_x1', durationMs: 2 }),
        callSpan({
          trace: 1,
          span: 2,
          conversation: 'conv-a',
          code: 'RETRYABLE',
          retryable: true,
          durationMs: 40,
        }),
        callSpan({
          trace: 2,
          span: 1,
          tool: 'list_orders',
          conversation: 'conv-a',
          durationMs: 9,
          parent: 2,
        }),
        callSpan({ trace: 2, span: 2, tool: 'list_orders', kind: 3 }),
      ];
      // Characters that bulk-load formats reserve (COPY text: tab, newline, backslash) survive the round trip.
      const awkward = 'tab\there\nnew line\\ back\\slash \r \u0000 end';
      if (batch[0]) batch[0].attributes.note = awkward;
      expect(await writeSpans(s, batch)).toEqual({ inserted: 4, duplicates: 0, toolCalls: 4 });
      expect(await writeSpans(s, batch)).toEqual({ inserted: 0, duplicates: 4, toolCalls: 0 });
      const { since, until } = window();
      const tools = await readTools(s, since, until);
      // The CLIENT span is the parent of its call's server span: the call counts once (call-side.ts).
      expect(tools.map((t) => [t.name, t.calls, t.errors])).toEqual([
        ['get_order', 2, 1],
        ['list_orders', 1, 0],
      ]);
      expect(tools[0]?.codes).toEqual({ RETRYABLE: 1 });
      expect(tools[0]?.p99Ms).toBeGreaterThan(30);
      const page = await readCalls(s, { sinceNs: since, untilNs: until, limit: 2 });
      expect(page.calls).toHaveLength(2);
      expect(page.nextCursor).not.toBeNull();
      const failing = await readCalls(s, {
        sinceNs: since,
        untilNs: until,
        limit: 10,
        code: 'RETRYABLE',
      });
      expect(failing.calls.map((c) => [c.tool, c.retryable, c.conversationId])).toEqual([
        ['get_order', true, 'conv-a'],
      ]);
      const byCallId = await readCalls(s, {
        sinceNs: since,
        untilNs: until,
        limit: 10,
        callId: 'call_x1',
      });
      expect(byCallId.calls.map((c) => c.spanId)).toEqual([batch[0]?.spanId]);
      const trace = await s.trace(traceIdOf(1));
      expect(trace?.map((sp) => sp.spanId)).toEqual([batch[0]?.spanId, batch[1]?.spanId]);
      expect(trace?.[0]?.resource).toEqual({ 'service.name': 'conformance' });
      expect(trace?.[0]?.attributes.note).toBe(awkward);
      expect(await s.trace(traceIdOf(99))).toBeNull();
      const conversation = await s.conversation('conv-a');
      expect(conversation?.traceIds.sort()).toEqual([traceIdOf(1), traceIdOf(2)]);
      expect(conversation?.spans).toHaveLength(4);
      const detail = await toolPage(s, 'get_order', since, until);
      expect(detail?.versions.map((v) => [v.version, v.schemaHash, v.calls])).toEqual([
        ['1', 'aaaaaaaaaaaaaaaa', 2],
      ]);
      expect(await toolPage(s, 'never_called', since, until)).toBeNull();
      const series = await readSeries(s, since, until, 60_000);
      expect(series.points.reduce((n, p) => n + p.calls, 0)).toBe(3);
      const hits = await readSearch(s, 'call_x1', since);
      expect(hits.map((h) => h.kind)).toContain('call');
      // A call id by its first characters, compared in byte order on both backends (PostgreSQL's collation
      // aside); `%` and `_` are characters.
      const callHits = async (q: string) =>
        (await readSearch(s, q, since)).filter((h) => h.kind === 'call').map((h) => h.label);
      expect(await callHits('call_x')).toEqual(['call call_x1 (get_order)']);
      expect(await callHits('CALL_X')).toEqual([]);
      expect(await callHits('call%')).toEqual([]);
      expect((await readSearch(s, 'list_', since)).map((h) => h.value)).toEqual(['list_orders']);
      expect((await readSearch(s, traceIdOf(2), since)).map((h) => h.kind)).toEqual(['trace']);
      // A conversation by prefix or substring, whatever the case; `_` is a character, not a wildcard.
      const conversations = async (q: string) =>
        (await readSearch(s, q, since))
          .filter((h) => h.kind === 'conversation')
          .map((h) => h.value);
      expect(await conversations('CONV')).toEqual(['conv-a']);
      expect(await conversations('nv-')).toEqual(['conv-a']);
      expect(await conversations('conv_')).toEqual([]);
    });

    it('flags a loop whose calls arrive in separate batches, once, and replaces it as it grows', async () => {
      const s = await openAt(await fresh());
      for (let i = 1; i <= 3; i++)
        await writeSpans(s, [
          callSpan({
            trace: 7,
            span: i,
            input: 'feedfacefeedface',
            code: 'INVALID_INPUT',
            issues: INVALID,
          }),
        ]);
      const { since, until } = window();
      const loops = (await flagsOf(s, since, until, {})).filter((f) => f.traceId === traceIdOf(7));
      expect(loops.map((f) => [f.kind, f.count]).sort()).toEqual([
        ['identical_retry', 3],
        ['unrepaired_invalid_input', 3],
      ]);
      await writeSpans(s, [
        callSpan({ trace: 7, span: 4, input: 'feedfacefeedface', code: 'INVALID_INPUT' }),
      ]);
      const grown = (await flagsOf(s, since, until, { kind: 'identical_retry' })).filter(
        (f) => f.traceId === traceIdOf(7),
      );
      expect(grown.map((f) => f.count)).toEqual([4]);
    });

    it('flags a loop across the traces of a conversation, and stays quiet for polling that succeeds', async () => {
      const s = await openAt(await fresh());
      for (let t = 10; t < 13; t++)
        await writeSpans(s, [
          callSpan({
            trace: t,
            span: 1,
            conversation: 'conv-loop',
            input: 'abababababababab',
            code: 'REJECTED',
          }),
        ]);
      for (let t = 20; t < 24; t++)
        await writeSpans(s, [
          callSpan({ trace: t, span: 1, conversation: 'conv-poll', input: 'cdcdcdcdcdcdcdcd' }),
        ]);
      const { since, until } = window();
      const flags = await flagsOf(s, since, until, {});
      const conv = flags.filter((f) => f.conversationId === 'conv-loop');
      expect(conv.map((f) => f.kind).sort()).toEqual([
        'identical_retry',
        'retry_after_non_retryable',
      ]);
      expect(conv[0]?.evidence.traceIds?.sort()).toEqual([
        traceIdOf(10),
        traceIdOf(11),
        traceIdOf(12),
      ]);
      expect(flags.filter((f) => f.conversationId === 'conv-poll')).toEqual([]);
    });

    it('keeps flagging a loop across a restart and right after a retention step', async () => {
      const place = await fresh();
      const first = await openAt(place);
      await writeSpans(first, [
        callSpan({ trace: 30, span: 1, input: '1111111111111111', code: 'FAILED' }),
      ]);
      await writeSpans(first, [
        callSpan({ trace: 30, span: 2, input: '1111111111111111', code: 'FAILED' }),
      ]);
      // A retention step that deletes something else in between (it used to forget every scope's counts).
      await writeSpans(first, [callSpan({ trace: 31, span: 1, agoMs: 3 * 3_600_000 })]);
      expect(await first.deleteBefore(nowNs() - 2n * HOUR_NS, 200)).toBe(1);
      expect(await first.trace(traceIdOf(31))).toBeNull();
      await first.close();
      closedByTest(first);
      const second = await openAt(place);
      await writeSpans(second, [
        callSpan({ trace: 30, span: 3, input: '1111111111111111', code: 'FAILED' }),
      ]);
      const { since, until } = window();
      const flags = await flagsOf(second, since, until, { kind: 'identical_retry' });
      expect(flags.map((f) => [f.traceId, f.count])).toEqual([[traceIdOf(30), 3]]);
      expect((await second.trace(traceIdOf(30)))?.length).toBe(3);
    });

    it('removes what retention cut off and nothing newer', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, [
        callSpan({ trace: 40, span: 1, agoMs: 5 * 3_600_000, conversation: 'old' }),
        callSpan({ trace: 41, span: 1, agoMs: 1000, conversation: 'new' }),
      ]);
      let deleted = 0;
      for (;;) {
        const n = await s.deleteBefore(nowNs() - HOUR_NS, 1);
        deleted += n;
        if (n === 0) break;
      }
      expect(deleted).toBe(1);
      expect(await s.trace(traceIdOf(40))).toBeNull();
      expect(await s.conversation('old')).toBeNull();
      expect((await s.trace(traceIdOf(41)))?.length).toBe(1);
      const { since, until } = window();
      expect((await readTools(s, nowNs() - 10n * HOUR_NS, until)).map((t) => t.calls)).toEqual([1]);
      expect(
        (await readCalls(s, { sinceNs: since, untilNs: until, limit: 10 })).calls,
      ).toHaveLength(1);
    });

    it('stores a NUL in a tool name or conversation id the same way on every backend', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, [
        callSpan({ trace: 60, span: 1, tool: 'nul\u0000tool', conversation: 'c\u0000v' }),
      ]);
      const { since, until } = window();
      expect((await readTools(s, since, until)).map((t) => t.name)).toEqual(['nul\uFFFDtool']);
      expect((await s.conversation('c\uFFFDv'))?.spans).toHaveLength(1);
    });

    it('answers percentiles of spread durations within the histogram error, from raw calls and rollups', async () => {
      const s = await openAt(await fresh());
      // 1..200 ms: exact nearest-rank p50 = 100, p95 = 190, p99 = 198. One tool in the current minute (read
      // from raw calls), one ten minutes back (read from the minute rollups).
      for (const [tool, agoMs] of [
        ['recent_tool', 500],
        ['rolled_tool', 600_000],
      ] as const) {
        const spans = Array.from({ length: 200 }, (_, i) =>
          callSpan({
            trace: 70,
            span: i + (agoMs > 1000 ? 500 : 0),
            tool,
            agoMs,
            durationMs: i + 1,
          }),
        );
        // Shuffled, so arrival order says nothing about the answer.
        spans.sort(() => Math.random() - 0.5);
        await writeSpans(s, spans);
      }
      const { since, until } = window();
      // A 5-second window holds no whole minute: answered from raw calls only.
      const raw = await readTools(s, nowNs() - 5_000_000_000n, nowNs(), 'recent_tool');
      for (const t of [...(await readTools(s, since, until)), ...raw]) {
        expect(t.calls).toBe(200);
        for (const [got, exact] of [
          [t.p50Ms, 100],
          [t.p95Ms, 190],
          [t.p99Ms, 198],
        ] as const) {
          // Log buckets 5 % wide: the middle of a bucket is within 2.5 % of anything in it.
          expect(Math.abs((got ?? 0) - exact) / exact, `${t.name} ${exact}`).toBeLessThan(0.026);
        }
      }
    });

    it('leaves damaged stored values out of an answer and reports each, instead of failing or hiding it', async () => {
      const place = await fresh();
      const damage: string[] = [];
      const first = await openAt(place);
      await writeSpans(first, [
        callSpan({ trace: 80, span: 1 }),
        callSpan({ trace: 81, span: 1, durationMs: 7 }),
        callSpan({ trace: 82, span: 1 }),
        callSpan({ trace: 83, span: 1 }),
        callSpan({ trace: 84, span: 1 }),
      ]);
      await first.close();
      closedByTest(first);
      const seqOf = (t: number) => `(SELECT seq FROM traces WHERE trace_id = '${traceIdOf(t)}')`;
      // Trace 80 as an older release stored it (JSON text), damaged; trace 82 packed, damaged.
      const pg = place.db.startsWith('postgres');
      // Codec 2's byte and zstd's magic, then a frame header claiming no content and no block after it.
      const garbage = pg ? "decode('0228b52ffd2000', 'hex')" : "unhex('0228b52ffd2000')";
      // Trace 83 stored with no blocks left; trace 84's block with neither form (PostgreSQL's `spans` may be
      // NULL since v6; SQLite's may not, so there it is damaged as trace 80's is).
      const empty = pg ? 'NULL' : "'not json'";
      await execRaw(
        place.db,
        `UPDATE span_blocks SET spans = 'not json', packed = NULL WHERE trace_seq = ${seqOf(80)};
         UPDATE span_blocks SET packed = ${garbage} WHERE trace_seq = ${seqOf(82)};
         DELETE FROM span_blocks WHERE trace_seq = ${seqOf(83)};
         UPDATE span_blocks SET spans = ${empty}, packed = NULL WHERE trace_seq = ${seqOf(84)};
         UPDATE tool_minutes SET hist = '{"12": "x"}';
         UPDATE tool_hours SET hist = '{"12": "x"}';`,
      );
      const s = await openAt(place, { onDamage: (what) => damage.push(what) });
      expect(await s.trace(traceIdOf(80))).toEqual([]);
      expect((await s.trace(traceIdOf(81)))?.length).toBe(1);
      expect(await s.trace(traceIdOf(82))).toEqual([]);
      expect(await s.trace(traceIdOf(83))).toEqual([]);
      expect(await s.trace(traceIdOf(84))).toEqual([]);
      expect(await s.trace(traceIdOf(85))).toBeNull();
      const { since, until } = window();
      expect((await readTools(s, since, until)).map((t) => t.calls)).toEqual([5]);
      // Reports arrive from a reader thread on SQLite: wait for them, not for a guess at a delay.
      for (let i = 0; i < 200 && damage.length < 4; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(damage.some((d) => d.includes(traceIdOf(80)) && d.includes('not valid JSON'))).toBe(
        true,
      );
      expect(
        damage.some(
          (d) =>
            d ===
            `a packed span block (codec 2) does not unpack in trace ${traceIdOf(82)}; its spans are left out`,
        ),
      ).toBe(true);
      expect(damage.some((d) => /^tool_(minutes|hours): .*malformed bucket/.test(d))).toBe(true);
      expect(damage.filter((d) => d.includes(traceIdOf(83)))).toEqual([]);
      expect(damage.some((d) => d.includes(traceIdOf(84)))).toBe(true);
    });

    it('reports drift: one version served with two contracts', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, [callSpan({ trace: 50, span: 1, schemaHash: '1111222233334444' })]);
      await writeSpans(s, [callSpan({ trace: 51, span: 1, schemaHash: '5555666677778888' })]);
      const { since, until } = window();
      const silent = await flagsOf(s, since, until, { kind: 'silent_schema_change' });
      expect(silent.map((f) => [f.tool, f.version, f.evidence.schemaHashes?.sort()])).toEqual([
        ['get_order', '1', ['1111222233334444', '5555666677778888']],
      ]);
      expect(await s.ready()).toEqual({ ok: true });
    });
  });
}
