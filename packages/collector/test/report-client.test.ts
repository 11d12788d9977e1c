// `toolscope report --client`: the tools counted over one MCP client's calls (and one version's), read from a
// store or a running collector alike; the JSON report says whose calls it counts, and a baseline counting
// other calls is refused rather than compared.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
      'counts every call, this run the calls of client "cursor": compare reports of the same calls',
    );
    // The same client's baseline compares; one version of it is other calls.
    const cursor = join(dir, 'cursor.json');
    writeFileSync(cursor, JSON.stringify(await jsonReport(['--url', c.url, '--client', 'cursor'])));
    const same = io();
    expect(
      await runCli(
        ['report', '--url', c.url, '--since', '1h', '--client', 'cursor', '--baseline', cursor],
        same,
      ),
    ).toBe(0);
    expect(same.stdout).toContain('### Against the baseline');
    const oneVersion = io();
    expect(
      await runCli(
        [
          'report',
          '--url',
          c.url,
          '--client',
          'cursor',
          '--client-version',
          '1.2',
          '--baseline',
          cursor,
        ],
        oneVersion,
      ),
    ).toBe(2);
    expect(oneVersion.stderr).toContain(
      'counts the calls of client "cursor", this run the calls of client "cursor" version "1.2"',
    );
    // A report from before --client (format 2, no client field) counts every call.
    const old = join(dir, 'old.json');
    const { client: _client, ...before } = (await jsonReport(['--url', c.url])) as JsonReport & {
      formatVersion: number;
    };
    writeFileSync(old, JSON.stringify(before));
    expect(await runCli(['report', '--url', c.url, '--baseline', old], io())).toBe(0);
    expect(await runCli(['report', '--url', c.url, '--client', 'x', '--baseline', old], io())).toBe(
      2,
    );
  });

  it('writes format 3 for one client’s calls, 2 for every call, so an older reader refuses the first', async () => {
    const every = (await jsonReport(['--url', c.url])) as JsonReport & { formatVersion: number };
    const one = (await jsonReport(['--url', c.url, '--client', 'claude'])) as JsonReport & {
      formatVersion: number;
    };
    expect([every.formatVersion, one.formatVersion]).toEqual([2, 3]);
  });

  it('shows a hostile client name as code, on one line, and quotes a baseline’s in its refusal', async () => {
    const o = io();
    const name = 'evil`</b>|\n# x';
    expect(await runCli(['report', '--url', c.url, '--client', name], o)).toBe(0);
    expect(o.stdout).toContain("client `evil'</b>| # x` only");
    const hostile = join(dir, 'hostile.json');
    const base = await jsonReport(['--url', c.url]);
    writeFileSync(
      hostile,
      JSON.stringify({
        ...base,
        formatVersion: 3,
        client: { name: `a\u001b[31m${'x'.repeat(300)}` },
      }),
    );
    const refused = io();
    expect(await runCli(['report', '--url', c.url, '--baseline', hostile], refused)).toBe(2);
    expect(refused.stderr).toContain('the calls of client "a\\u001b[31mxxx');
    expect(refused.stderr).not.toContain('\u001b');
    expect(refused.stderr).toContain('…"');
  });

  it('names the client in SARIF (its own automation category) and in JUnit (its own suite)', async () => {
    type Sarif = {
      runs: {
        automationDetails?: { id: string };
        properties?: { client: unknown };
        results: { ruleId: string; message: { text: string }; partialFingerprints: object }[];
      }[];
    };
    const sarifOf = async (args: string[]) => {
      const o = io();
      const code = await runCli(
        ['report', '--url', c.url, '--max-error-rate', '0.2', '--format', 'sarif', ...args],
        o,
      );
      return { code, log: JSON.parse(o.stdout) as Sarif };
    };
    // get_order fails 1 of 6 calls in all, 1 of 2 of cursor 1.2's: over 0.2 for cursor only.
    const every = await sarifOf([]);
    expect(every.code).toBe(0);
    expect(every.log.runs[0]?.automationDetails).toBeUndefined();
    const name = 'cursor';
    const one = await sarifOf(['--client', name, '--client-version', '1.2']);
    expect(one.code).toBe(1);
    const run = one.log.runs[0];
    expect(run?.automationDetails?.id).toBe('toolscope/client:cursor@1.2/');
    expect(run?.properties?.client).toEqual({ name: 'cursor', version: '1.2' });
    const breach = run?.results.find((r) => r.ruleId === 'max-error-rate');
    expect(breach?.message.text).toContain('(the calls of client "cursor" version "1.2")');
    // A name with a slash stays inside the category (the id up to its last slash).
    const slashed = await sarifOf(['--client', 'a/b c']);
    expect(slashed.log.runs[0]?.automationDetails?.id).toBe('toolscope/client:a%2Fb%20c/');

    const junitOf = async (args: string[]) => {
      const o = io();
      await runCli(['report', '--url', c.url, '--format', 'junit', ...args], o);
      return o.stdout;
    };
    expect(await junitOf([])).toContain('<testsuite name="toolscope" ');
    expect(await junitOf([])).not.toContain('<properties>');
    const xml = await junitOf(['--client', 'cursor', '--client-version', '1.2']);
    expect(xml).toContain(
      '<testsuite name="toolscope the calls of client &quot;cursor&quot; version &quot;1.2&quot;" ',
    );
    expect(xml).toContain('<property name="toolscope.client" value="cursor"/>');
    expect(xml).toContain('<property name="toolscope.clientVersion" value="1.2"/>');
    const hostile = await junitOf(['--client', 'x"/><evil a="\u0007']);
    expect(hostile).toContain('value="x&quot;/&gt;&lt;evil a=&quot;"/>');
    expect(hostile).not.toContain('<evil');
    expect(hostile).not.toContain('\u0007');
    // Newlines and tabs kept as character references (a parser reads them as spaces in an attribute), and what
    // XML 1.0 cannot carry at all dropped: a strict parser would reject the whole report for it.
    const spaced = await junitOf(['--client', 'a\nb\tc\uffff\ud800d']);
    expect(spaced).toContain('<property name="toolscope.client" value="a&#10;b&#9;cd"/>');
    expect(spaced).not.toMatch(/[\uffff\ud800]/);
  });

  it('ci refuses a baseline of other calls before it runs the command', async () => {
    const marker = join(dir, 'ran');
    const every = join(dir, 'every-ci.json');
    writeFileSync(every, JSON.stringify(await jsonReport(['--url', c.url])));
    const o = io();
    const code = await runCli(
      [
        'ci',
        '--client',
        'cursor',
        '--baseline',
        every,
        '--',
        process.execPath,
        '-e',
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '1')`,
      ],
      o,
    );
    expect(code).toBe(2);
    expect(o.stderr).toContain('toolscope ci: ');
    expect(o.stderr).toContain('compare reports of the same calls');
    expect(existsSync(marker)).toBe(false);
  });
});
