// The query API: every parameter validated with a message naming it, cursor pagination, time ranges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallsResponse, ToolsResponse } from '../src/api/schemas.js';
import { getJson, jsonBody, postJson, startTestCollector, type TestCollector } from './harness.js';

let c: TestCollector;
const now = Date.now();

beforeAll(async () => {
  c = await startTestCollector();
  const tool = (name: string, code?: string) => (i: number) => ({
    attributes: [
      { key: 'gen_ai.tool.name', value: { stringValue: name } },
      { key: 'toolscope.schema.version', value: { stringValue: i % 2 ? '2' : '1' } },
      ...(code
        ? [
            { key: 'toolscope.error.code', value: { stringValue: code } },
            { key: 'error.type', value: { stringValue: code } },
          ]
        : []),
    ],
  });
  // 25 calls of search_docs (ok), 5 of get_order failing with INVALID_INPUT, one hour ago; 3 two days ago.
  expect(
    (await postJson(c.url, jsonBody(1, 25, tool('search_docs'), now - 3_600_000))).status,
  ).toBe(200);
  expect(
    (await postJson(c.url, jsonBody(2, 5, tool('get_order', 'INVALID_INPUT'), now - 3_600_000)))
      .status,
  ).toBe(200);
  expect(
    (await postJson(c.url, jsonBody(3, 3, tool('get_order'), now - 2 * 86_400_000))).status,
  ).toBe(200);
});
afterAll(() => c.stop());

describe('GET /api/tools', () => {
  it('aggregates the last 24 h by default, with codes, versions and percentiles', async () => {
    const { body } = await getJson<ToolsResponse>(`${c.url}/api/tools`);
    expect(body.tools.map((t) => [t.name, t.calls, t.errors, t.errorRate])).toEqual([
      ['search_docs', 25, 0, 0],
      ['get_order', 5, 5, 1],
    ]);
    const search = body.tools[0];
    expect(search?.versions).toEqual(['1', '2']);
    expect(search?.codes).toEqual({});
    expect(body.tools[1]?.codes).toEqual({ INVALID_INPUT: 5 });
    // Every span lasts 5 ms: percentiles from the histogram are within a bucket (±2.5 %).
    for (const p of [search?.p50Ms, search?.p95Ms, search?.p99Ms])
      expect(Math.abs((p ?? 0) - 5)).toBeLessThan(0.15);
  });

  it('takes since and until as durations, ISO times or epoch milliseconds', async () => {
    const week = await getJson<ToolsResponse>(`${c.url}/api/tools?since=7d`);
    expect(week.body.tools.find((t) => t.name === 'get_order')?.calls).toBe(8);
    const iso = new Date(now - 3 * 86_400_000).toISOString();
    const until = String(now - 86_400_000);
    const old = await getJson<ToolsResponse>(`${c.url}/api/tools?since=${iso}&until=${until}`);
    expect(old.body.tools).toEqual([
      expect.objectContaining({ name: 'get_order', calls: 3, errors: 0 }),
    ]);
  });

  it.each([
    ['since=yesterday', 'since: expected an ISO 8601 time'],
    ['since=1h&until=2h', 'since: must be before until'],
    ['bogus=1', 'unknown parameter: bogus'],
  ])('400 for %s', async (query, message) => {
    const res = await getJson<{ error: { code: string; message: string } }>(
      `${c.url}/api/tools?${query}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.message).toContain(message);
  });
});

describe('GET /api/calls', () => {
  it('filters by tool, code and version', async () => {
    const failing = await getJson<CallsResponse>(
      `${c.url}/api/calls?tool=get_order&code=INVALID_INPUT`,
    );
    expect(failing.body.calls).toHaveLength(5);
    const v2 = await getJson<CallsResponse>(`${c.url}/api/calls?tool=search_docs&version=2`);
    expect(v2.body.calls).toHaveLength(12);
    const ok = await getJson<CallsResponse>(`${c.url}/api/calls?code=OK`);
    expect(ok.body.calls.every((x) => x.code === null)).toBe(true);
  });

  it('pages with a cursor, newest first, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${c.url}/api/calls?tool=search_docs&limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const page: { body: CallsResponse } = await getJson<CallsResponse>(url);
      seen.push(...page.body.calls.map((x) => x.spanId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
  });

  it.each([
    ['limit=0', 'limit:'],
    ['limit=abc', 'limit:'],
    ['traceId=xyz', 'traceId: expected 32 hex characters'],
    ['cursor=bm9wZQ', 'cursor: not a cursor returned by this API'],
    ['code=%3Cscript%3E', 'code:'],
  ])('400 for %s', async (query, message) => {
    const res = await getJson<{ error: { message: string } }>(`${c.url}/api/calls?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(message);
  });
});

describe('GET /api/traces and /api/conversations', () => {
  it('404 for an unknown trace or conversation, 400 for a malformed id', async () => {
    expect((await fetch(`${c.url}/api/traces/${'f'.repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${c.url}/api/traces/nope`)).status).toBe(400);
    expect((await fetch(`${c.url}/api/conversations/none`)).status).toBe(404);
  });
});
