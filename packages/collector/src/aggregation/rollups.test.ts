// A batch's rollups against a plain count of the same calls: every minute and hour row of both tables once, with
// its calls, errors and histograms, whether its key was a number or (past 256 values of a field, or 64 minutes)
// the string it was; an hour that shares its one minute's histograms leaves the minute's as they were.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeKey } from '../calls/code.js';
import { addTo, type Histogram } from './histogram.js';
import { addSize, emptySizes, type SizeAgg } from './result-sizes.js';
import {
  MinuteRollups,
  NS_PER_HOUR,
  NS_PER_MINUTE,
  type Rollup,
  type RollupInput,
  type RollupSide,
  withHours,
} from './rollups.js';

type Counted = { calls: number; errors: number; hist: Histogram; sizes: SizeAgg };
const T0 = 1_764_590_000_000_000_000n;
const SIDES: RollupSide[] = ['server', 'client', 'paired', 'proxied', 'joined'];

/** Every row the calls make, by table, bucket and key, counted plainly. */
function plainly(calls: { call: RollupInput; side: RollupSide }[]): Map<string, Counted> {
  const out = new Map<string, Counted>();
  const count = (key: string, call: RollupInput) => {
    let c = out.get(key);
    if (!c) {
      c = { calls: 0, errors: 0, hist: new Map(), sizes: emptySizes() };
      out.set(key, c);
    }
    c.calls++;
    if (call.isError) c.errors++;
    addTo(c.hist, call.durationMs);
    addSize(c.sizes, call.resultBytes, call.resultTokens);
  };
  for (const { call, side } of calls) {
    const tool = [
      call.tool,
      call.version ?? '',
      codeKey(call.code, call.errorType, call.isError),
      side,
    ];
    const client = [call.clientName ?? '', call.clientVersion ?? ''];
    for (const [unit, minute] of [
      [NS_PER_MINUTE, true],
      [NS_PER_HOUR, false],
    ] as const) {
      const bucket = call.startNs / unit;
      count([minute ? 'tool_minutes' : 'tool_hours', bucket, ...tool].join('|'), call);
      const table = minute ? 'tool_client_minutes' : 'tool_client_hours';
      count([table, bucket, ...tool, ...client].join('|'), call);
    }
  }
  return out;
}

const keyOf = (r: Rollup) =>
  r.table === 'tool_minutes' || r.table === 'tool_hours'
    ? [r.table, r.bucket, r.tool, r.version, r.code, r.side].join('|')
    : [r.table, r.bucket, r.tool, r.version, r.code, r.side, r.clientName, r.clientVersion].join(
        '|',
      );
const snapshot = (r: Rollup | Counted) =>
  JSON.stringify([
    r.calls,
    r.errors,
    [...r.hist],
    [...r.sizes.bytes],
    [...r.sizes.tokens],
    r.sizes.maxBytes,
    r.sizes.maxTokens,
  ]);

const call = fc.record({
  tool: fc.oneof(
    fc.constantFrom('get_order', 'search'),
    fc.integer({ min: 0, max: 400 }).map((n) => `t${n}`),
  ),
  version: fc.constantFrom(null, '1', '2'),
  code: fc.constantFrom(null, 'INVALID_INPUT', 'REJECTED'),
  errorType: fc.constantFrom(null, 'timeout'),
  isError: fc.boolean(),
  durationMs: fc.double({ min: 0, max: 5000, noNaN: true }),
  // Mostly one or two minutes; sometimes spread over hours and past 64 minutes.
  startNs: fc.oneof(
    fc.bigInt({ min: T0, max: T0 + 2n * NS_PER_MINUTE }),
    fc.bigInt({ min: T0, max: T0 + 3n * NS_PER_HOUR }),
  ),
  resultBytes: fc.constantFrom(null, 10, 2000),
  resultTokens: fc.constantFrom(null, 3, 500),
  clientName: fc.oneof(
    fc.constantFrom(null, 'cursor'),
    fc.integer({ min: 0, max: 300 }).map((n) => `c${n}`),
  ),
  clientVersion: fc.constantFrom(null, '1.2.3', ''),
});
const batch = fc.array(fc.record({ call, side: fc.constantFrom(...SIDES) }), { maxLength: 600 });

describe('a batch’s rollups', () => {
  it('count each row once, as a plain count of the same calls does', () => {
    fc.assert(
      fc.property(batch, (calls) => {
        const minutes = new MinuteRollups();
        for (const { call, side } of calls) minutes.add(call, side);
        const minuteRows = [...minutes.values()].map((r) => [keyOf(r), snapshot(r)]);
        const rows = withHours(minutes);
        const keys = rows.map(keyOf);
        expect(new Set(keys).size).toBe(keys.length);
        const expected = plainly(calls);
        expect(new Map(rows.map((r) => [keyOf(r), snapshot(r)]))).toEqual(
          new Map([...expected].map(([k, c]) => [k, snapshot(c)])),
        );
        // The minutes are what they were before their hours were made.
        expect(minuteRows).toEqual([...minutes.values()].map((r) => [keyOf(r), snapshot(r)]));
      }),
      { numRuns: 300 },
    );
  });

  it('keys by string past 256 tools and 64 minutes, and still counts each row once', () => {
    const base: RollupInput = {
      tool: 'get_order',
      version: '1',
      code: null,
      errorType: null,
      isError: false,
      durationMs: 4,
      startNs: T0,
      resultBytes: 10,
      resultTokens: 3,
      clientName: 'cursor',
      clientVersion: '1',
    };
    const calls: { call: RollupInput; side: RollupSide }[] = [];
    // 300 tools in one minute, each twice on two sides; then 70 minutes of one tool, twice each.
    for (let i = 0; i < 300; i++)
      for (const side of ['server', 'client'] as const)
        for (let n = 0; n < 2; n++) calls.push({ call: { ...base, tool: `t${i}` }, side });
    for (let m = 0; m < 70; m++)
      for (let n = 0; n < 2; n++)
        calls.push({
          call: { ...base, startNs: T0 + BigInt(m) * NS_PER_MINUTE, isError: n === 1 },
          side: 'server',
        });
    const minutes = new MinuteRollups();
    for (const { call, side } of calls) minutes.add(call, side);
    const rows = withHours(minutes);
    const keys = rows.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Map(rows.map((r) => [keyOf(r), snapshot(r)]))).toEqual(
      new Map([...plainly(calls)].map(([k, c]) => [k, snapshot(c)])),
    );
  });
});
