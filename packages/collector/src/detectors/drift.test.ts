// Input and output drift as a rule over the reader's answers: who the failing calls come from (one agent
// repeating itself is a loop, not drift), the calls a flag links, and the times it reads from them.
import { describe, expect, it } from 'vitest';
import { type DriftInput, detectDrift } from './drift.js';
import { agentsOf, type FailingCall, type FailingCalls, linkedCalls } from './drift-calls.js';

const MS = 1_000_000n;
/** 2026-12-01T22:11:00.000Z, in nanoseconds. */
const T0 = BigInt(Date.parse('2026-12-01T22:11:00.000Z')) * MS;

/** A refused call `ms` after T0 (span ids follow the trace and time, so each call has its own). */
const failing = (
  trace: string,
  ms: number,
  o: { conversation?: string; input?: string | null } = {},
): FailingCall => ({
  traceId: trace,
  spanId: `${trace}-${ms}`,
  conversationId: o.conversation ?? null,
  inputHash: o.input === undefined ? 'h-typo' : o.input,
  startNs: T0 + BigInt(ms) * MS,
});

/** Newest first, as the reader gives them, and the first. */
const answer = (calls: FailingCall[]): FailingCalls => {
  const newest = [...calls].sort((a, b) => (a.startNs > b.startNs ? -1 : 1));
  return { newest, first: newest.at(-1) ?? null };
};

describe('the agents behind failing calls', () => {
  it.each([
    {
      what: 'one uninstrumented client behind the proxy repeating one input (a trace per call)',
      calls: [failing('t1', 0), failing('t2', 10), failing('t3', 20)],
      agents: 1,
    },
    {
      what: 'one conversation over three traces with three inputs',
      calls: ['a', 'b', 'c'].map((x, i) =>
        failing(`t${i}`, i, { conversation: 'conv-1', input: x }),
      ),
      agents: 1,
    },
    {
      what: 'one trace trying three inputs',
      calls: ['a', 'b', 'c'].map((x, i) => failing('t1', i, { input: x })),
      agents: 1,
    },
    {
      what: 'three traces with three inputs, no conversation',
      calls: ['a', 'b', 'c'].map((x, i) => failing(`t${i}`, i, { input: x })),
      agents: 3,
    },
    {
      what: 'three conversations sending the same input',
      calls: [0, 1, 2].map((i) => failing(`t${i}`, i, { conversation: `conv-${i}` })),
      agents: 3,
    },
    {
      what: 'calls without an input hash in three traces',
      calls: [0, 1, 2].map((i) => failing(`t${i}`, i, { input: null })),
      agents: 3,
    },
  ])('$what: $agents', ({ calls, agents }) => {
    expect(agentsOf(calls)).toBe(agents);
  });

  it('links the first and the newest call, then the newest of other traces, five at most', () => {
    const calls = [
      failing('t1', 0, { input: 'a' }),
      ...[1, 2, 3, 4, 5, 6].map((i) => failing(`t${i}`, i * 10, { input: `x${i}` })),
      failing('t6', 70, { input: 'x6' }),
    ];
    expect(linkedCalls(answer(calls)).map((c) => c.spanId)).toEqual([
      't1-0',
      't6-70',
      't5-50',
      't4-40',
      't3-30',
    ]);
  });
});

describe('input and output drift', () => {
  const split = T0 - 60_000n * MS;
  /** A tool called only in the recent part, every call refused (no baseline), with no failing path recorded. */
  const input = (calls: FailingCall[]): DriftInput => ({
    splitNs: split,
    schemas: [],
    baseline: [],
    current: [{ name: 'get-sum', calls: calls.length, codes: { INVALID_INPUT: calls.length } }],
    shapes: [],
    paths: [],
    failing: (tool, code) =>
      tool === 'get-sum' && code === 'INVALID_INPUT' ? answer(calls) : undefined,
  });

  it('takes one agent repeating bad input for a loop, not drift', () => {
    expect(detectDrift(input([failing('t1', 0), failing('t2', 10), failing('t3', 20)]))).toEqual(
      [],
    );
  });

  it('is dated from the calls it links, to the millisecond, and links them', () => {
    const calls = ['a', 'b', 'c'].map((x, i) =>
      failing(`t${i}`, 5_123 + i * 1_000, { input: x, conversation: `conv-${x}` }),
    );
    const [flag, ...rest] = detectDrift(input(calls));
    expect(rest).toEqual([]);
    expect(flag).toMatchObject({
      kind: 'input_drift',
      tool: 'get-sum',
      count: 3,
      firstSeen: '2026-12-01T22:11:05.123Z',
      lastSeen: '2026-12-01T22:11:07.123Z',
      evidence: {
        traceIds: ['t0', 't2', 't1'],
        spanIds: ['t0-5123', 't2-7123', 't1-6123'],
        conversations: ['conv-a', 'conv-c', 'conv-b'],
      },
    });
    expect(flag?.summary).toBe(
      'get-sum: 100 % of recent calls fail INVALID_INPUT (baseline 0 %), from 3 agents.',
    );
  });

  it('speaks of an old input shape only after a contract change, for a shape accepted before', () => {
    const calls = ['a', 'b', 'c'].map((x, i) => failing(`t${i}`, i, { input: x }));
    const shape = (name: string, firstNs: bigint, accepted: number) => ({
      tool: 'get-sum',
      shape: name,
      firstNs,
      lastNs: T0,
      calls: accepted + 3,
      invalid: 3,
    });
    const schema = (hash: string) => ({
      tool: 'get-sum',
      version: hash === 'h1' ? '1' : '2',
      hash,
      firstNs: split - 60_000n * MS,
      lastNs: T0,
      calls: 5,
      traceId: 't9',
    });
    const summary = (over: Partial<DriftInput>) =>
      detectDrift({ ...input(calls), ...over })[0]?.summary;
    const old = shape('a:number', split - 10n * MS, 20);
    expect(summary({ shapes: [old], schemas: [schema('h1'), schema('h2')] })).toMatch(
      /; the contract changed and clients still send an old input shape \(a:number\)\.$/,
    );
    expect(summary({ shapes: [old] })).toMatch(/; clients send an input shape accepted before/);
    expect(summary({ shapes: [shape('a:string', split + MS, 0)] })).toMatch(
      /; clients send input shapes not seen before \(a:string\)\.$/,
    );
  });

  it('raises nothing without the failing calls to link', () => {
    const none = {
      ...input([]),
      current: [{ name: 'get-sum', calls: 3, codes: { INVALID_INPUT: 3 } }],
    };
    expect(detectDrift(none)).toEqual([]);
  });
});
