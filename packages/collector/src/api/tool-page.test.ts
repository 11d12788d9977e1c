// The tool page as assembled from the reader's answers: versions marked where one carried several contracts,
// times as ISO strings, histogram buckets as their bounds.
import { describe, expect, it } from 'vitest';
import type { SchemaVersion } from '../storage/contract.js';
import type { ToolStats } from './schemas.js';
import { assembleToolPage } from './tool-page.js';

const T = 1_700_000_000_000n * 1_000_000n;
const version = (v: string, hash: string): SchemaVersion => ({
  tool: 'get_order',
  version: v,
  schemaHash: hash,
  firstNs: T,
  lastNs: T + 1_000_000n,
  calls: 2,
  lastTraceId: 'tr',
});
const summary = { name: 'get_order', calls: 3 } as ToolStats;
const page = (versions: SchemaVersion[], latency = [{ bucket: 0, count: 1 }]) =>
  assembleToolPage('get_order', {
    stats: { summary, latency, resultBytes: [{ bucket: 100, count: 2 }] },
    clients: [],
    versions,
    paths: [
      {
        tool: 'get_order',
        code: 'INVALID_INPUT',
        path: 'input.id',
        count: 4,
        lastTraceId: 'tp',
        firstMinute: 1,
        lastMinute: 2,
      },
    ],
    shapes: [],
  });

describe('assembleToolPage', () => {
  it.each([
    [
      'one contract per version: no silent change',
      [version('1', 'a'), version('2', 'b')],
      [false, false],
    ],
    [
      'a version served with two contracts: both rows marked',
      [version('1', 'a'), version('1', 'b'), version('2', 'c')],
      [true, true, false],
    ],
  ])('%s', (_, versions, silent) => {
    expect(page(versions).versions.map((v) => v.silentChange)).toEqual(silent);
  });

  it('writes times as ISO strings and leaves the tool out of each path', () => {
    const p = page([version('1', 'a')]);
    expect(p.versions[0]).toMatchObject({
      firstSeen: '2023-11-14T22:13:20.000Z',
      lastSeen: '2023-11-14T22:13:20.001Z',
    });
    expect(p.failingPaths).toStrictEqual([
      { code: 'INVALID_INPUT', path: 'input.id', count: 4, lastTraceId: 'tp' },
    ]);
    expect(p.stats).toBe(summary);
  });

  it.each([
    ['bucket 0 holds up to 1.05 µs', 0, { fromMs: 0, toMs: 0.001 }],
    ['bucket 100 starts at 1.05^100 µs (131.5 µs), to the µs', 100, { fromMs: 0.132, toMs: 0.138 }],
    ['bucket 200 starts at 17.3 ms', 200, { fromMs: 17.293, toMs: 18.157 }],
  ])('latency %s', (_, bucket, bounds) => {
    expect(page([], [{ bucket, count: 5 }]).latency).toStrictEqual([{ ...bounds, count: 5 }]);
  });

  it('gives result buckets in whole bytes, rounded up', () => {
    expect(page([]).resultBytes).toStrictEqual([{ fromBytes: 132, toBytes: 139, count: 2 }]);
  });
});
