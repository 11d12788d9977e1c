// The story's rows from spans: the two sides of a call merged by the collector's pairing rule, where they
// disagree said, a call seen only by the client kept, repeats marked, and pinned flags pointed at their rows.
import type { Flag, SpanOut } from '@toolscope/collector/schemas';
import { describe, expect, it } from 'vitest';
import { pinnedFlags, storyRows } from '../src/story-model.js';

const TRACE = 'a'.repeat(32);

function span(
  id: string,
  startMs: number,
  attrs: Record<string, unknown>,
  more: Partial<SpanOut> = {},
): SpanOut {
  const start = BigInt(startMs) * 1_000_000n;
  return {
    traceId: TRACE,
    spanId: id,
    parentSpanId: null,
    name: 'tools/call',
    kind: 2,
    startTime: new Date(startMs).toISOString(),
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 5_000_000n),
    durationMs: 5,
    status: { code: 0, message: '' },
    attributes: { 'gen_ai.tool.name': 'get_order', ...attrs },
    events: [],
    links: [],
    resource: {},
    scope: { name: 's', version: '1' },
    truncatedAttributes: [],
    droppedAttributes: 0,
    ...more,
  };
}

describe('storyRows', () => {
  it('merges a client span with its server child, the server winning and disagreements kept', () => {
    const rows = storyRows([
      span(
        'c1',
        1000,
        { 'toolscope.error.code': 'RETRYABLE', 'toolscope.input.hash': 'h1' },
        { kind: 3 },
      ),
      span(
        's1',
        1001,
        {
          'toolscope.error.code': 'INVALID_INPUT',
          'toolscope.schema.version': '2',
          'toolscope.input.hash': 'h1',
        },
        { parentSpanId: 'c1' },
      ),
      // Seen only by the client (the server never answered): its own row.
      span('c2', 2000, { 'toolscope.input.hash': 'h1' }, { kind: 3 }),
      // Paired by call id rather than parenthood.
      span('c3', 3000, { 'gen_ai.tool.call.id': 'call_9' }, { kind: 3 }),
      span('s3', 3001, { 'gen_ai.tool.call.id': 'call_9', 'toolscope.input.shape': 'id:string' }),
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

  it('pins the flags that touch the rows, pointing at the rows their evidence names', () => {
    const rows = storyRows([
      span('s1', 1000, { 'toolscope.schema.hash': 'x1' }),
      span('s2', 2000, { 'toolscope.schema.hash': 'x2' }),
      span('s3', 3000, { 'gen_ai.tool.name': 'other' }),
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
});
