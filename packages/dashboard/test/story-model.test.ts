// The story's rows from spans: the two sides of a call merged by the collector's pairing rule, where they
// disagree said, a call seen only by the client kept, repeats marked, and pinned flags pointed at their rows.
import type { Flag, SpanCall, SpanOut } from '@toolscope/collector/schemas';
import { describe, expect, it } from 'vitest';
import { cycleRounds, modelSteps, pinnedFlags, storyItems, storyRows } from '../src/story-model.js';

const TRACE = 'a'.repeat(32);

/** A span as the API sends it: `call` is the collector's reading, given here field by field. */
function span(
  id: string,
  startMs: number,
  call: Partial<SpanCall> | null,
  more: Partial<SpanOut> = {},
): SpanOut {
  const start = BigInt(startMs) * 1_000_000n;
  const kind = more.kind ?? 2;
  const base: SpanOut = {
    traceId: TRACE,
    spanId: id,
    parentSpanId: null,
    name: 'tools/call',
    kind,
    startTime: new Date(startMs).toISOString(),
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 5_000_000n),
    durationMs: 5,
    status: { code: 0, message: '' },
    attributes: {},
    events: [],
    links: [],
    resource: {},
    scope: { name: 's', version: '1' },
    truncatedAttributes: [],
    droppedAttributes: 0,
    call: null,
    modelCall: null,
    service: null,
    ...more,
  };
  if (call === null) return base;
  base.call = {
    traceId: TRACE,
    spanId: id,
    parentSpanId: more.parentSpanId ?? null,
    tool: 'get_order',
    version: null,
    schemaHash: null,
    attempt: 1,
    code: null,
    retryable: null,
    partialEffect: null,
    durationMs: 5,
    startTime: base.startTime,
    issues: [],
    inputHash: null,
    inputShape: null,
    outputHash: null,
    errorType: null,
    reason: null,
    effect: null,
    conversationId: null,
    callId: null,
    service: null,
    kind,
    side: kind === 3 ? 'client' : 'server',
    source: 'toolscope',
    paired: false,
    proxy: false,
    exceptionType: null,
    exceptionMessage: null,
    clientName: null,
    clientVersion: null,
    resultBytes: null,
    resultTokens: null,
    arguments: null,
    result: null,
    replay: false,
    failedAttempts: [],
    legs: 1,
    inputWaitMs: 0,
    task: null,
    parts: 1,
    complete: true,
    joinedTo: null,
    joinedToTraceId: null,
    ...call,
  };
  return base;
}

describe('storyRows', () => {
  it('merges a client span with its server child, the server winning and disagreements kept', () => {
    const rows = storyRows([
      span('c1', 1000, { code: 'RETRYABLE', inputHash: 'h1' }, { kind: 3 }),
      span(
        's1',
        1001,
        { code: 'INVALID_INPUT', version: '2', inputHash: 'h1' },
        { parentSpanId: 'c1' },
      ),
      // Seen only by the client (the server never answered): its own row.
      span('c2', 2000, { inputHash: 'h1' }, { kind: 3 }),
      // Paired by call id rather than parenthood.
      span('c3', 3000, { callId: 'call_9' }, { kind: 3 }),
      span('s3', 3001, { callId: 'call_9', inputShape: 'id:string' }),
    ]);
    expect(rows.map((r) => [r.n, r.spanId, Boolean(r.client), Boolean(r.server)])).toEqual([
      [1, 's1', true, true],
      [2, 'c2', true, false],
      [3, 's3', true, true],
    ]);
    const [first, second, third] = rows;
    expect(first?.call.code).toBe('INVALID_INPUT');
    expect(first?.call.version).toBe('2');
    expect(first?.disagreements).toEqual([
      { field: 'code', client: 'RETRYABLE', server: 'INVALID_INPUT' },
    ]);
    expect(first?.startNs).toBe(1_000_000_000n);
    expect(second?.repeatOf).toBe(1);
    expect(third?.call.inputShape).toBe('id:string');
    expect(third?.disagreements).toEqual([]);
  });

  it('puts the parts of a logical call inside the row of the span holding it, the call lasting all of them', () => {
    const rows = storyRows([
      span('c1', 1000, { inputHash: 'h1' }, { kind: 3, durationMs: 300 }),
      span(
        's1',
        1001,
        { inputHash: 'h1', legs: 2, parts: 3, durationMs: 250 },
        { parentSpanId: 'c1' },
      ),
      span('s2', 1100, { inputHash: 'h1', joinedTo: 's1' }, { parentSpanId: 'c1' }),
      span('p1', 1200, { tool: '', joinedTo: 's1' }, { endTimeUnixNano: String(1_260_000_000n) }),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.spanId).toBe('s1');
    expect(rows[0]?.parts.map((p) => p.span.spanId)).toEqual(['s2', 'p1']);
    expect(rows[0]?.client?.span.spanId).toBe('c1');
    expect(rows[0]?.endNs).toBe(1_260_000_000n);
  });

  it('pins the flags that touch the rows, pointing at the rows their evidence names', () => {
    const rows = storyRows([
      span('s1', 1000, { schemaHash: 'x1' }),
      span('s2', 2000, { schemaHash: 'x2' }),
      span('s3', 3000, { tool: 'other' }),
    ]);
    const flag = (over: Partial<Flag>): Flag => ({
      kind: 'silent_schema_change',
      severity: 'error',
      tool: 'get_order',
      count: 1,
      firstSeen: '',
      lastSeen: '',
      summary: '',
      evidence: {},
      ...over,
    });
    const pinned = pinnedFlags(
      [
        flag({ evidence: { traceIds: [TRACE], schemaHashes: ['x2'] } }),
        flag({ kind: 'identical_retry', conversationId: 'conv-1', evidence: { spanIds: ['s3'] } }),
        flag({ evidence: { traceIds: ['b'.repeat(32)] } }),
      ],
      'conv-1',
      rows,
    );
    expect(pinned.map((p) => [p.flag.kind, p.rows])).toEqual([
      ['silent_schema_change', [2]],
      ['identical_retry', [3]],
    ]);
  });

  it('puts the model steps between the calls, a step starting with a call before it', () => {
    const model = (input: number) => ({
      system: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: input,
      outputTokens: 7,
      finishReason: 'tool-calls',
      source: 'ai-sdk',
    });
    const spans = [
      span('m1', 900, null, { modelCall: model(100) }),
      span('s1', 1000, { code: 'FAILED' }),
      span('m2', 2000, null, { modelCall: model(200) }),
      span('s2', 2000, {}),
      span('m3', 3000, null, { modelCall: model(300) }),
      // Neither a call nor a model step: not in the story.
      span('x', 2500, null),
    ];
    const items = storyItems(storyRows(spans), modelSteps(spans));
    expect(
      items.map((i) => (i.kind === 'call' ? `call ${i.row.spanId}` : `model ${i.step.spanId}`)),
    ).toEqual(['model m1', 'call s1', 'model m2', 'call s2', 'model m3']);
    const step = items[2];
    expect(step?.kind === 'model' && step.step.model.inputTokens).toBe(200);
  });

  it('marks each row of a cycle with its round', () => {
    const rows = storyRows(
      ['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'x'].map((id, i) =>
        span(id, 1000 * (i + 1), { tool: id.startsWith('a') ? 'search' : 'open' }),
      ),
    );
    const cycle: Flag = {
      kind: 'tool_cycle',
      severity: 'warning',
      tool: 'search',
      count: 6,
      firstSeen: '',
      lastSeen: '',
      summary: '',
      evidence: {
        spanIds: ['a1', 'b1', 'a2', 'b2', 'a3', 'b3'],
        cycle: [
          { tool: 'search', inputHash: 'h1' },
          { tool: 'open', inputHash: 'h2' },
        ],
        rounds: 3,
      },
    };
    const rounds = cycleRounds([cycle], rows);
    expect([...rounds.entries()]).toEqual([
      [1, 'round 1 of 3'],
      [2, 'round 1 of 3'],
      [3, 'round 2 of 3'],
      [4, 'round 2 of 3'],
      [5, 'round 3 of 3'],
      [6, 'round 3 of 3'],
    ]);
    expect(cycleRounds([{ ...cycle, kind: 'identical_retry' }], rows).size).toBe(0);
  });

  it('reads an agent, the proxy and an instrumented server as one call, the proxy a hop on it', () => {
    const rows = storyRows([
      span('agent', 1000, { code: 'tool_error' }, { kind: 3 }),
      span('proxy', 1001, { code: 'INVALID_OUTPUT', proxy: true }, { parentSpanId: 'agent' }),
      span('server', 1002, { code: 'INVALID_OUTPUT', version: '3' }, { parentSpanId: 'proxy' }),
      // The proxy alone in front of a server nobody instrumented: its row is the call.
      span('proxy2', 2000, { proxy: true }),
    ]);
    expect(
      rows.map((r) => [
        r.spanId,
        r.client?.span.spanId,
        r.proxy?.span.spanId,
        r.server?.span.spanId,
      ]),
    ).toEqual([
      ['server', 'agent', 'proxy', 'server'],
      ['proxy2', undefined, undefined, 'proxy2'],
    ]);
    expect(rows[0]?.call.version).toBe('3');
  });
});
