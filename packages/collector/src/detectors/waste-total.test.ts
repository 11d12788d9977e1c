// Loop cost summed over flags: each wasted call counted once, flags that share one counted as one loop.
import { describe, expect, it } from 'vitest';
import { type Flag, totalWasted } from './flag.js';
import { detectLoops, type LoopFlag } from './loops/index.js';
import { c, scopeOf } from './loops/test-scope.js';

/** A detector's flag as GET /api/flags shows it once stored (storage/sql/scope-sql.ts flagRowOf). */
const asFlag = (f: LoopFlag, where: { traceId?: string; conversationId?: string } = {}): Flag => ({
  kind: f.kind,
  severity: f.severity,
  tool: f.tool,
  count: f.count,
  firstSeen: new Date(Number(f.firstNs / 1_000_000n)).toISOString(),
  lastSeen: new Date(Number(f.lastNs / 1_000_000n)).toISOString(),
  summary: f.summary,
  ...where,
  evidence: { traceIds: f.traceIds, spanIds: f.spanIds, inputHash: f.inputHash, ...f.evidence },
});

const wastedOf = (f: Flag) => f.evidence.wasted ?? { calls: 0, ms: 0 };

describe('loop cost summed over flags', () => {
  // The demo's loop: one input refused three times in a row, which is an identical retry and an unrepaired
  // invalid input, each pinning the same three calls.
  const story = scopeOf(
    [0, 1, 2].map((i) =>
      c('get_order', 'cus-42', {
        code: 'INVALID_INPUT',
        resultTokens: 7,
        startMs: i * 1000,
        endMs: i * 1000 + 30,
      }),
    ),
  );

  it('counts the calls two flags pin once, as one loop', () => {
    const flags = detectLoops(story).map((f) => asFlag(f, { traceId: 't1' }));
    expect(flags.map((f) => f.kind).sort()).toEqual([
      'identical_retry',
      'unrepaired_invalid_input',
    ]);
    // Each flag alone says what it wasted: the two calls after the first.
    for (const f of flags) expect(wastedOf(f)).toMatchObject({ calls: 2, ms: 2000 });
    expect(totalWasted(flags)).toEqual({
      loops: 1,
      calls: 2,
      ms: 2000,
      resultTokens: 14,
      modelTokens: 0,
    });
  });

  it('counts a loop of a trace and the same loop across its conversation once', () => {
    // Three refused calls in trace t1, a fourth in t2 of the same conversation: the trace's flag pins the
    // first three, the conversation's all four.
    const calls = [0, 1, 2, 3].map((i) =>
      c('get_order', 'cus-42', {
        code: 'UPSTREAM',
        startMs: i * 1000,
        endMs: i * 1000 + 30,
        traceId: i < 3 ? 't1' : 't2',
      }),
    );
    const inTrace = detectLoops(scopeOf(calls.slice(0, 3))).map((f) =>
      asFlag(f, { traceId: 't1' }),
    );
    const across = detectLoops(scopeOf(calls)).map((f) => asFlag(f, { conversationId: 'conv' }));
    expect([...inTrace, ...across].map((f) => f.kind)).toEqual([
      'identical_retry',
      'identical_retry',
    ]);
    expect(totalWasted([...inTrace, ...across])).toMatchObject({ loops: 1, calls: 3, ms: 3000 });
  });

  it('counts a call two loops price differently once, at its narrower share, whatever the order', () => {
    // A cycle search → fetch, three rounds, whose search is refused every time: the cycle prices the second
    // search from the first fetch's end, the unrepaired input from the first search's end.
    const calls = [0, 1, 2].flatMap((r) => [
      c('search', 'q', { code: 'INVALID_INPUT', startMs: r * 1000, endMs: r * 1000 + 100 }),
      c('fetch', 'u', { output: 'page', startMs: r * 1000 + 400, endMs: r * 1000 + 500 }),
    ]);
    const flags = detectLoops(scopeOf(calls)).map((f) => asFlag(f, { traceId: 't1' }));
    expect(flags.map((f) => f.kind).sort()).toEqual(['tool_cycle', 'unrepaired_invalid_input']);
    const cycle = flags.find((f) => f.kind === 'tool_cycle') as Flag;
    const unrepaired = flags.find((f) => f.kind === 'unrepaired_invalid_input') as Flag;
    expect(wastedOf(cycle)).toMatchObject({ calls: 4, ms: 2000 });
    expect(wastedOf(unrepaired)).toMatchObject({ calls: 2, ms: 2000 });
    // One loop; its calls once each: the cycle's four (which hold the unrepaired two), priced as the cycle
    // prices them.
    const total = { loops: 1, calls: 4, ms: 2000, resultTokens: 0, modelTokens: 0 };
    expect(totalWasted(flags)).toEqual(total);
    expect(totalWasted([...flags].reverse())).toEqual(total);
  });

  it('adds up distinct loops, and counts a flag stored without its wasted calls whole', () => {
    const one = detectLoops(story).map((f) => asFlag(f, { traceId: 't1' }));
    // Another scope's calls (the fixture numbers spans s0, s1, … in every scope, so these are renamed).
    const pays = scopeOf(
      [0, 1, 2].map((i) =>
        c('pay', 'p', { code: 'UPSTREAM', startMs: 5000 + i * 100, endMs: 5000 + i * 100 + 50 }),
      ),
    );
    const other = detectLoops({
      ...pays,
      calls: pays.calls.map((x) => ({ ...x, traceId: 't3', spanId: `pay-${x.spanId}` })),
    }).map((f) => asFlag(f, { traceId: 't3' }));
    const old: Flag = {
      ...(other[0] as Flag),
      traceId: 't4',
      evidence: { wasted: { calls: 5, ms: 10, resultTokens: 1, modelTokens: 2 } },
    };
    const notALoop: Flag = { ...old, kind: 'input_drift', evidence: {} };
    expect(totalWasted([...one, ...other, old, notALoop])).toEqual({
      loops: 3,
      calls: 2 + 2 + 5,
      ms: 2000 + 200 + 10,
      resultTokens: 14 + 0 + 1,
      modelTokens: 2,
    });
    expect(totalWasted([])).toEqual({ loops: 0, calls: 0, ms: 0, resultTokens: 0, modelTokens: 0 });
  });
});
