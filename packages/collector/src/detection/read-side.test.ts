// The read-side composition's own rules, as pure functions: where the recent part of a window starts, how
// stored loop flags and the reader's records become the detectors' inputs, and what the flags fall back to.
import { describe, expect, it } from 'vitest';
import type { ContractSummary, StoredFlag, ToolUsage } from '../storage/contract.js';
import { contractsByHash, deprecatedUsageOf, liveContracts } from './read-contract-flags.js';
import { pathRowOf, schemaRowOf, splitOf } from './read-drift.js';
import { flagOfStored } from './read-flags.js';
import { crossingsOf, growthSeenOf } from './read-result-flags.js';

const MIN = 60_000_000_000n;
const HOUR = 60n * MIN;
const T = 1_700_000_000_000n * 1_000_000n;

describe('splitOf: the start of the recent part of a window', () => {
  it.each([
    ['a day: its last quarter', T - 24n * HOUR, T, T - 6n * HOUR],
    ['four minutes: the last minute', T - 4n * MIN, T, T - MIN],
    ['two minutes: at least a minute', T - 2n * MIN, T, T - MIN],
    ['one minute: the whole window', T - MIN, T, T - MIN],
    ['thirty seconds: never before the window', T - MIN / 2n, T, T - MIN / 2n],
  ])('%s', (_, since, until, split) => {
    expect(splitOf(since, until)).toBe(split);
  });
});

const stored: StoredFlag = {
  kind: 'identical_retry',
  severity: 'error',
  tool: 'get_order',
  traceId: 'a'.repeat(32),
  conversationId: null,
  count: 3,
  firstNs: T,
  lastNs: T + 2_000_000_000n,
  summary: 'get_order was called 3 times with the same input',
  evidence: { inputHash: 'abab', spanIds: ['1', '2', '3'] },
};

describe('flagOfStored: a stored loop flag as the API shows it', () => {
  it.each([
    [
      'a trace flag keeps its trace and leaves the conversation out',
      stored,
      { traceId: 'a'.repeat(32) },
    ],
    [
      'a conversation flag keeps its conversation and leaves the trace out',
      { ...stored, traceId: null, conversationId: 'conv-1' },
      { conversationId: 'conv-1' },
    ],
  ])('%s', (_, s, scope) => {
    expect(flagOfStored(s)).toStrictEqual({
      kind: 'identical_retry',
      severity: 'error',
      tool: 'get_order',
      count: 3,
      firstSeen: '2023-11-14T22:13:20.000Z',
      lastSeen: '2023-11-14T22:13:22.000Z',
      summary: 'get_order was called 3 times with the same input',
      evidence: { inputHash: 'abab', spanIds: ['1', '2', '3'] },
      ...scope,
    });
  });
});

describe("the drift detector's rows from the reader's records", () => {
  it('renames the columns the detector names differently and keeps the rest', () => {
    const version = {
      tool: 't',
      version: '2',
      schemaHash: 'h2',
      firstNs: T,
      lastNs: T + MIN,
      calls: 7,
      lastTraceId: 'tr',
    };
    expect(schemaRowOf(version)).toStrictEqual({
      tool: 't',
      version: '2',
      hash: 'h2',
      firstNs: T,
      lastNs: T + MIN,
      calls: 7,
      traceId: 'tr',
    });
    const path = {
      tool: 't',
      code: 'INVALID_INPUT',
      path: 'input.id',
      count: 4,
      lastTraceId: 'tr',
      firstMinute: 10,
      lastMinute: 12,
    };
    expect(pathRowOf(path)).toStrictEqual({
      tool: 't',
      code: 'INVALID_INPUT',
      path: 'input.id',
      count: 4,
      traceId: 'tr',
    });
  });
});

const usage: ToolUsage = {
  calls: 4,
  firstNs: T,
  lastNs: T + MIN,
  clientServices: [],
  serverServices: ['orders-mcp'],
  conversations: ['c1'],
  clients: ['claude-code'],
  traceIds: ['t1'],
};
const contract: ContractSummary = {
  tool: 'old_lookup',
  version: '1',
  schemaHash: 'h1',
  services: ['orders-mcp'],
  schemaBytes: 100,
  schemaTokens: 30,
  deprecated: { replacedBy: 'lookup', sunset: null },
  lastNs: T - 2n * HOUR,
  served: [],
};

const seen = {
  first: { startNs: T, traceId: 't0', spanId: 's0' },
  newest: { startNs: T + MIN, traceId: 't1', spanId: 's1' },
};

describe('deprecatedUsageOf: who called a deprecated tool', () => {
  it.each([
    ['callers are the client spans’ services', ['agent'], ['agent']],
    ['a server-only deployment names its servers as callers', [], ['orders-mcp']],
  ])('%s', (_, clientServices, callers) => {
    const u = deprecatedUsageOf(contract, { ...usage, clientServices }, seen);
    expect(u?.callers).toEqual(callers);
    expect(u?.services).toEqual(['orders-mcp']);
    expect(u).toMatchObject({ contract, calls: 4, clients: ['claude-code'], traceIds: ['t1'] });
    // Its first and newest call date the flag.
    expect(u).toMatchObject({ first: seen.first, newest: seen.newest });
  });

  it('is nothing without a call of the tool in the window to date it', () => {
    expect(deprecatedUsageOf(contract, usage, { first: null, newest: null })).toBeNull();
  });
});

describe('liveContracts: the contracts whose weight counts in a window', () => {
  const called = [schemaRowOf({ ...baseVersion(), tool: 'called_tool' })];
  it.each([
    ['reported in the window', { tool: 'x', lastNs: T }, true],
    ['reported before it, but called in it', { tool: 'called_tool', lastNs: T - HOUR }, true],
    ['reported before it and not called', { tool: 'x', lastNs: T - HOUR }, false],
  ])('%s', (_, c, live) => {
    const summary = { ...contract, ...c };
    expect(liveContracts([summary], T - MIN, called)).toEqual(live ? [summary] : []);
  });
});

function baseVersion() {
  return {
    tool: 't',
    version: '1',
    schemaHash: 'h',
    firstNs: T,
    lastNs: T,
    calls: 1,
    lastTraceId: 'x',
  };
}

describe('contractsByHash', () => {
  it('keys each reported schema by tool and hash', () => {
    const map = contractsByHash([
      {
        tool: 'a',
        schemaHash: 'h1',
        description: 'd',
        inputSchema: { type: 'object' },
        outputSchema: null,
      },
    ]);
    expect([...map.keys()]).toEqual(['a\u0000h1']);
    expect(map.get('a\u0000h1')).toStrictEqual({
      description: 'd',
      inputSchema: { type: 'object' },
      outputSchema: null,
    });
  });
});

describe('the result flags’ evidence from the reader’s records', () => {
  it('gives crossings in milliseconds, newest first as read, and the first', () => {
    const c = crossingsOf({
      calls: [
        { traceId: 't2', spanId: 's2', version: '2', tokens: 12_000, startNs: T + 5_000_000n },
        { traceId: 't1', spanId: 's1', version: null, tokens: 11_000, startNs: T + 1_000_000n },
      ],
      first: { traceId: 't0', spanId: 's0', version: '1', tokens: 10_500, startNs: T },
      count: 9,
    });
    expect(c).toStrictEqual({
      calls: [
        { traceId: 't2', spanId: 's2', version: '2', tokens: 12_000, atMs: 1_700_000_000_005 },
        { traceId: 't1', spanId: 's1', version: null, tokens: 11_000, atMs: 1_700_000_000_001 },
      ],
      first: { traceId: 't0', spanId: 's0', version: '1', tokens: 10_500, atMs: 1_700_000_000_000 },
      count: 9,
    });
  });

  it.each([
    [
      'a version called in the window: its first and newest call',
      {
        first: { startNs: T + 1_000_000n, traceId: 'tf', spanId: 'sf' },
        newest: { startNs: T + 9_000_000n, traceId: 'tr', spanId: 'sp' },
      },
      {
        first: { traceId: 'tf', spanId: 'sf', atMs: 1_700_000_000_001 },
        newest: { traceId: 'tr', spanId: 'sp', atMs: 1_700_000_000_009 },
      },
    ],
    [
      'no call of it in the window: nothing to date a flag from',
      { first: null, newest: null },
      null,
    ],
  ])('%s', (_, v, seen) => {
    expect(growthSeenOf(v)).toStrictEqual(seen);
  });
});
