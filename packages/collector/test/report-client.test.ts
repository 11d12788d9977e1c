// `toolscope report --client`: the tools counted over one MCP client's calls (and one version's), read from a
// store or a running collector alike; the JSON report says whose calls it counts, and a baseline counting
// other calls is refused rather than compared.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import {
  captureIo as io,
  otlpToolCalls,
  postJson,
  startTestCollector,
  type TestCollector,
} from './harness.js';

let c: TestCollector;
let dir: string;
const now = Date.now();
beforeAll(async () => {
  c = await startTestCollector();
  dir = mkdtempSync(join(tmpdir(), 'toolscope-report-client-'));
  // cursor 1.2: 2 get_order, one refused; cursor 1.3: 1 search_docs; claude: 3 get_order; none named: 1.
  const calls = [
    { trace: 1, input: 'a', client: { name: 'cursor', version: '1.2' } },
    { trace: 1, input: 'b', code: 'INVALID_INPUT', client: { name: 'cursor', version: '1.2' } },
    { trace: 2, input: 'c', tool: 'search_docs', client: { name: 'cursor', version: '1.3' } },
    ...[3, 4, 5].map((trace) => ({ trace, input: `d${trace}`, client: { name: 'claude' } })),
    { trace: 6, input: 'e' },
  ].map((call, i) => ({ ...call, atMs: now - 60_000 + i * 1000 }));
  expect((await postJson(c.url, otlpToolCalls(calls))).status).toBe(200);
});
afterAll(async () => {
  await c.stop();
  rmSync(dir, { recursive: true, force: true });
});

type JsonReport = { client: unknown; tools: { name: string; calls: number; errorRate: number }[] };
async function jsonReport(args: string[]): Promise<JsonReport> {
  const o = io();
  expect(await runCli(['report', '--since', '1h', '--format', 'json', ...args], o), o.stderr).toBe(
    0,
  );
  return JSON.parse(o.stdout) as JsonReport;
}
const counts = (r: JsonReport) => r.tools.map((t) => [t.name, t.calls, t.errorRate]);

describe('toolscope report --client', () => {
  it('counts one client’s calls, from a collector and from its store alike', async () => {
    for (const source of [
      ['--url', c.url],
      ['--db', c.dbPath],
    ]) {
      const all = await jsonReport(source);
      expect(all.client).toBeNull();
      expect(counts(all)).toEqual([
        ['get_order', 6, 0.1667],
        ['search_docs', 1, 0],
      ]);
      const cursor = await jsonReport([...source, '--client', 'cursor']);
      expect(cursor.client).toEqual({ name: 'cursor' });
      expect(counts(cursor)).toEqual([
        ['get_order', 2, 0.5],
        ['search_docs', 1, 0],
      ]);
      const version = await jsonReport([
        ...source,
        '--client',
        'cursor',
        '--client-version',
        '1.3',
      ]);
      expect(version.client).toEqual({ name: 'cursor', version: '1.3' });
      expect(counts(version)).toEqual([['search_docs', 1, 0]]);
      expect(counts(await jsonReport([...source, '--client', 'nobody']))).toEqual([]);
    }
  });

  it('says in Markdown whose calls it counts, the name as code', async () => {
    const o = io();
    expect(await runCli(['report', '--url', c.url, '--since', '1h', '--client', 'claude'], o)).toBe(
      0,
    );
    expect(o.stdout).toContain(
      "Tools counted over the calls of MCP client `claude` only; flags, contracts and recovery are every client's.",
    );
    expect(o.stdout).toMatch(/\| get_order \| 3 \| 0 \| 0\.0 % \|/);
  });

  it('refuses a version without a client, and a baseline that counts other calls', async () => {
    const o = io();
    expect(await runCli(['report', '--url', c.url, '--client-version', '1.2'], o)).toBe(2);
    expect(o.stderr).toContain('--client-version: needs --client');

    const every = join(dir, 'every.json');
    writeFileSync(every, JSON.stringify(await jsonReport(['--url', c.url])));
    const mismatch = io();
    expect(
      await runCli(
        ['report', '--url', c.url, '--since', '1h', '--client', 'cursor', '--baseline', every],
        mismatch,
      ),
    ).toBe(2);
    expect(mismatch.stderr).toContain(
      "counts every call, this run client cursor's calls: compare reports of the same calls",
    );
    // The same client's baseline compares.
    const cursor = join(dir, 'cursor.json');
    writeFileSync(cursor, JSON.stringify(await jsonReport(['--url', c.url, '--client', 'cursor'])));
    expect(
      await runCli(
        ['report', '--url', c.url, '--since', '1h', '--client', 'cursor', '--baseline', cursor],
        io(),
      ),
    ).toBe(0);
  });
});
