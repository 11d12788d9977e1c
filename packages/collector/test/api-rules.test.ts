// API rules every source relies on: one definition of a call's code (a failed span with only an ERROR status is
// `ERROR` in counts and in filters alike), path parameters as long as the stored names, every refusal in the
// API's error shape, and validation issue items kept when a producer leaves out their code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getJson,
  jsonBody,
  otlpToolCalls,
  postJson,
  startTestCollector,
  type TestCollector,
} from './harness.js';

let c: TestCollector;
beforeAll(async () => {
  c = await startTestCollector();
});
afterAll(async () => {
  await c.stop();
});

type Tools = {
  tools: { name: string; calls: number; errors: number; codes: Record<string, number> }[];
};
type Calls = {
  calls: { tool: string; code: string | null; issues: { path: string; code: string }[] }[];
};

describe('API rules', () => {
  it('counts and filters a bare failed span under the same code, ERROR', async () => {
    const body = jsonBody(901, 2, (i) => ({
      attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: 'bare_failure' } }],
      status: { code: i === 0 ? 2 : 0 },
    }));
    expect((await postJson(c.url, body)).status).toBe(200);
    const tools = await getJson<Tools>(`${c.url}/api/tools?tool=bare_failure`);
    expect(tools.body.tools[0]).toMatchObject({ calls: 2, errors: 1, codes: { ERROR: 1 } });
    const failed = await getJson<Calls>(`${c.url}/api/calls?tool=bare_failure&code=ERROR`);
    expect(failed.body.calls).toHaveLength(1);
    const ok = await getJson<Calls>(`${c.url}/api/calls?tool=bare_failure&code=OK`);
    expect(ok.body.calls).toHaveLength(1);
  });

  it('takes a tool name up to the stored 256 characters in a path, and refuses longer ones in its own shape', async () => {
    const long = `t${'é'.repeat(255)}`;
    const body = otlpToolCalls([
      { trace: 902, tool: long, input: 'cccccccccccccccc', atMs: Date.now() },
    ]);
    expect((await postJson(c.url, body)).status).toBe(200);
    const found = await getJson<{ name: string }>(`${c.url}/api/tools/${encodeURIComponent(long)}`);
    expect(found.status).toBe(200);
    expect(found.body.name).toBe(long);
    const tooLong = await getJson<{ error: { code: string; message: string } }>(
      `${c.url}/api/tools/${'x'.repeat(5000)}`,
    );
    expect(tooLong.status).toBeGreaterThanOrEqual(400);
    expect(tooLong.status).toBeLessThan(500);
    expect(tooLong.body.error.code).toBe('INVALID_PARAMETER');
  });

  it('keeps the issues of a span when one item has no code', async () => {
    const body = otlpToolCalls([
      {
        trace: 903,
        tool: 'lenient_issues',
        input: 'dddddddddddddddd',
        code: 'INVALID_INPUT',
        atMs: Date.now(),
        issues: [
          { path: 'customerId', code: 'invalid_type', message: 'expected string' },
          { path: 'limit', message: 'too big' } as { path: string; code: string; message: string },
        ],
      },
    ]);
    expect((await postJson(c.url, body)).status).toBe(200);
    const calls = await getJson<Calls>(`${c.url}/api/calls?tool=lenient_issues`);
    expect(calls.body.calls[0]?.issues).toEqual([
      { path: 'customerId', code: 'invalid_type', message: 'expected string' },
      { path: 'limit', code: 'unknown', message: 'too big' },
    ]);
  });
});
