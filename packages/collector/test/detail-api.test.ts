// The dashboard's API: the tool page (/api/tools/:name), the chart (/api/timeseries), search (/api/search)
// and the calls filters it uses (callId, errors), all answered from data sent through the real ingest path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CallsResponse,
  SearchResponse,
  TimeseriesResponse,
  ToolDetailResponse,
  ToolsResponse,
} from '../src/api/schemas.js';
import {
  getJson,
  otlpToolCalls,
  postJson,
  startTestCollector,
  type TestCollector,
} from './harness.js';

let c: TestCollector;
const now = Date.now();
const hourAgo = now - 3_600_000;
const hex = (n: number) => n.toString(16).padStart(32, '0');
const issue = { path: 'customerId', code: 'invalid_type', message: 'expected string' };

beforeAll(async () => {
  c = await startTestCollector();
  const body = otlpToolCalls([
    // v1 with two contracts (a silent change), failing inputs with one path, and a repaired call.
    { trace: 1, input: 'a', hash: 'h1', atMs: hourAgo },
    { trace: 1, input: 'b', hash: 'h1', atMs: hourAgo + 1000 },
    {
      trace: 2,
      input: 'c',
      hash: 'h2',
      code: 'INVALID_INPUT',
      shape: 'customerId:number',
      issues: [issue],
      atMs: hourAgo + 2000,
      conversation: 'conv-9',
    },
    {
      trace: 2,
      input: 'c',
      hash: 'h2',
      code: 'INVALID_INPUT',
      shape: 'customerId:number',
      issues: [issue],
      atMs: hourAgo + 3000,
      conversation: 'conv-9',
    },
    {
      trace: 2,
      input: 'd',
      hash: 'h2',
      atMs: hourAgo + 4000,
      conversation: 'conv-9',
      callId: 'call_42',
    },
    { trace: 3, tool: 'catalogue_list', input: 'e', code: 'REJECTED', atMs: now - 120_000 },
  ]);
  expect((await postJson(c.url, body)).status).toBe(200);
});
afterAll(() => c.stop());

describe('GET /api/tools/:name', () => {
  it('returns versions with hashes over time, failing paths, shapes and latency', async () => {
    const { status, body } = await getJson<ToolDetailResponse>(`${c.url}/api/tools/get_order`);
    expect(status).toBe(200);
    expect(body.stats).toMatchObject({ name: 'get_order', calls: 5, errors: 2 });
    const tools = await getJson<ToolsResponse>(`${c.url}/api/tools?tool=get_order`);
    expect(body.stats).toEqual(tools.body.tools[0]);
    expect(body.versions.map((v) => [v.version, v.schemaHash, v.calls, v.silentChange])).toEqual([
      ['1', 'h1', 2, true],
      ['1', 'h2', 3, true],
    ]);
    expect(body.versions[1]?.lastTraceId).toBe(hex(2));
    expect(body.failingPaths).toEqual([
      { code: 'INVALID_INPUT', path: 'customerId', count: 2, lastTraceId: hex(2) },
    ]);
    expect(body.shapes.map((s) => [s.shape, s.calls, s.invalid])).toEqual([
      ['customerId:string', 3, 0],
      ['customerId:number', 2, 2],
    ]);
    // Every span lasts 2 ms: one bucket holding all five calls, around 2 ms.
    expect(body.latency.reduce((n, b) => n + b.count, 0)).toBe(5);
    expect(body.latency[0]?.fromMs).toBeLessThanOrEqual(2);
    expect(body.latency.at(-1)?.toMs).toBeGreaterThanOrEqual(2);
  });

  it('answers 404 for a tool never seen and 400 for a bad range', async () => {
    const missing = await getJson<{ error: { message: string } }>(`${c.url}/api/tools/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('nope');
    const bad = await getJson<{ error: { message: string } }>(
      `${c.url}/api/tools/get_order?since=soon`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^since:/);
    const extra = await getJson<{ error: { message: string } }>(`${c.url}/api/tools/get_order?x=1`);
    expect(extra.body.error.message).toBe('unknown parameter: x');
  });

  it('takes names that need encoding', async () => {
    const odd = 'a/b <c>?';
    const body = otlpToolCalls([{ trace: 9, tool: odd, input: 'z', atMs: now - 60_000 }]);
    expect((await postJson(c.url, body)).status).toBe(200);
    const res = await getJson<ToolDetailResponse>(`${c.url}/api/tools/${encodeURIComponent(odd)}`);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(odd);
  });
});

describe('GET /api/timeseries', () => {
  it('counts every call once, in steps covering the range, zeros included', async () => {
    const { body } = await getJson<TimeseriesResponse>(`${c.url}/api/timeseries?since=2h&step=5m`);
    expect(body.stepMs).toBe(300_000);
    expect(body.points.length).toBeGreaterThanOrEqual(24);
    expect(body.points.length).toBeLessThanOrEqual(25);
    const total = body.points.reduce((n, p) => n + p.calls, 0);
    const errors = body.points.reduce((n, p) => n + p.errors, 0);
    const tools = await getJson<ToolsResponse>(`${c.url}/api/tools?since=2h`);
    expect(total).toBe(tools.body.tools.reduce((n, t) => n + t.calls, 0));
    expect(errors).toBe(3);
    expect(body.points.filter((p) => p.calls > 0).length).toBeGreaterThanOrEqual(2);
    const one = await getJson<TimeseriesResponse>(
      `${c.url}/api/timeseries?since=2h&tool=catalogue_list`,
    );
    expect(one.body.points.reduce((n, p) => n + p.calls, 0)).toBe(1);
  });

  it('uses the hour rollup for hour steps and caps the number of points', async () => {
    const hours = await getJson<TimeseriesResponse>(`${c.url}/api/timeseries?since=7d&step=1h`);
    expect(hours.body.stepMs).toBe(3_600_000);
    expect(hours.body.points.reduce((n, p) => n + p.calls, 0)).toBeGreaterThanOrEqual(7);
    const capped = await getJson<TimeseriesResponse>(`${c.url}/api/timeseries?since=7d&step=1m`);
    expect(capped.body.points.length).toBeLessThanOrEqual(1_500);
    const bad = await getJson<{ error: { message: string } }>(`${c.url}/api/timeseries?step=10s`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^step:/);
  });
});

describe('GET /api/search and the calls filters', () => {
  const search = async (q: string) =>
    (await getJson<SearchResponse>(`${c.url}/api/search?q=${encodeURIComponent(q)}`)).body.results;

  it('resolves trace ids, conversation ids, call ids, tools and codes', async () => {
    expect(await search(hex(2).toUpperCase())).toEqual([
      { kind: 'trace', value: hex(2), label: `trace ${hex(2)}` },
    ]);
    expect((await search('conv-9'))[0]).toMatchObject({ kind: 'conversation', value: 'conv-9' });
    // By prefix and by substring, whatever the case: the exact id first, then ids that start with what was
    // typed, then ids that contain it.
    expect(
      (await search('ONV-9')).filter((r) => r.kind === 'conversation').map((r) => r.value),
    ).toEqual(['conv-9']);
    const byPrefix = (await search('conv')).filter((r) => r.kind === 'conversation');
    expect(byPrefix.map((r) => r.value)).toContain('conv-9');
    expect(byPrefix.every((r) => r.value.startsWith('conv'))).toBe(true);
    expect(await search('call_42')).toEqual([
      expect.objectContaining({ kind: 'call', traceId: hex(2), label: 'call call_42 (get_order)' }),
    ]);
    expect((await search('catalog')).map((r) => [r.kind, r.value])).toEqual([
      ['tool', 'catalogue_list'],
    ]);
    expect((await search('REJECT')).map((r) => [r.kind, r.value])).toEqual([['code', 'REJECTED']]);
    expect(await search('%')).toEqual([]);
    expect(await search('   ')).toEqual([]);
  });

  it('filters calls by call id and by failure', async () => {
    const byId = await getJson<CallsResponse>(`${c.url}/api/calls?callId=call_42`);
    expect(byId.body.calls.map((x) => [x.callId, x.code])).toEqual([['call_42', null]]);
    const failing = await getJson<CallsResponse>(`${c.url}/api/calls?errors=true&tool=get_order`);
    expect(failing.body.calls.map((x) => x.code)).toEqual(['INVALID_INPUT', 'INVALID_INPUT']);
    const ok = await getJson<CallsResponse>(`${c.url}/api/calls?errors=false&tool=get_order`);
    expect(ok.body.calls.length).toBe(3);
    const bad = await getJson<{ error: { message: string } }>(`${c.url}/api/calls?errors=yes`);
    expect(bad.body.error.message).toBe('errors: expected true or false');
  });
});
