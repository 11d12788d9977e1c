// `toolscope report` in each format with each exit code (JUnit parsed as XML), and `toolscope ci` around a
// small instrumented program.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { builtProgram } from './built.js';
import {
  captureIo as io,
  otlpToolCalls,
  postJson,
  startTestCollector,
  type TestCollector,
} from './harness.js';
import { junitSuite } from './junit-xml.js';

let c: TestCollector;
const now = Date.now();
beforeAll(async () => {
  c = await startTestCollector();
  // get_order: the retry loop (3 × INVALID_INPUT, same input, one trace); search_docs: 10 healthy calls.
  const calls = [
    ...[0, 1, 2].map((i) => ({
      trace: 1,
      input: 'h42',
      code: 'INVALID_INPUT',
      shape: 'customerId:number',
      atMs: now - 60_000 + i * 1000,
    })),
    ...Array.from({ length: 10 }, (_, i) => ({
      trace: 2 + i,
      tool: 'search_docs',
      input: `q${i}`,
      output: { bytes: 4_000 + i * 100, tokens: 1_200 + i * 30 },
      atMs: now - 30_000 + i * 100,
    })),
  ];
  expect((await postJson(c.url, otlpToolCalls(calls))).status).toBe(200);
});
afterAll(() => c.stop());

describe('toolscope report', () => {
  it('prints markdown with the tools table and flags, exit 0 without thresholds', async () => {
    const o = io();
    expect(await runCli(['report', '--url', c.url, '--since', '1h'], o)).toBe(0);
    expect(o.stdout).toContain('| tool | calls | errors | error rate | p95 | codes |');
    expect(o.stdout).toMatch(/\| get_order \| 3 \| 3 \| 100\.0 % \|/);
    expect(o.stdout).toMatch(/\| search_docs \| 10 \| 0 \| 0\.0 % \|/);
    expect(o.stdout).toContain('**identical_retry**');
    // The identical retry and the unrepaired invalid input name the same calls: one loop, two wasted calls.
    expect(o.stdout).toMatch(
      /\*\*What the loops wasted:\*\* 1 loop, 2 calls after their first round, /,
    );
    expect(o.stdout).toContain('within thresholds');
    // Only search_docs' calls carried a result size: it alone is in the heaviest results, max exact.
    expect(o.stdout).toContain('### Heaviest results');
    expect(o.stdout).toMatch(
      /\| search_docs \| 1,[0-9]{3} \| 1,[0-9]{3} \| 1,470 \| 4\.[0-9] KB \|/,
    );
    expect(o.stdout).not.toMatch(/\| get_order \| [0-9,]+ \| [0-9,]+ \| [0-9,]+ \| /);
  });

  it('exits 1 over --max-error-rate or with a --fail-on flag, and appends to GITHUB_STEP_SUMMARY', async () => {
    const summary = join(mkdtempSync(join(tmpdir(), 'gh-')), 'summary.md');
    const o = io({ GITHUB_STEP_SUMMARY: summary });
    expect(await runCli(['report', '--url', c.url, '--max-error-rate', '0.5'], o)).toBe(1);
    expect(readFileSync(summary, 'utf8')).toContain('thresholds crossed');
    expect(await runCli(['report', '--url', c.url, '--fail-on', 'identical_retry'], io())).toBe(1);
    expect(
      await runCli(
        ['report', '--url', c.url, '--fail-on', 'version_skew', '--max-error-rate', '1'],
        io(),
      ),
    ).toBe(0);
    expect(
      await runCli(
        ['report', '--url', c.url, '--tool', 'search_docs', '--max-error-rate', '0'],
        io(),
      ),
    ).toBe(0);
  });

  it('prints JSON with the /api/tools and /api/flags shapes', async () => {
    const o = io();
    expect(await runCli(['report', '--url', c.url, '--format', 'json'], o)).toBe(0);
    const body = JSON.parse(o.stdout) as {
      tools: { name: string; errorRate: number }[];
      flags: { kind: string; evidence: { wasted?: { calls: number } } }[];
      wasted: { loops: number; calls: number; ms: number; modelTokens: number };
      passed: boolean;
    };
    expect(body.tools.map((t) => [t.name, t.errorRate])).toEqual([
      ['search_docs', 0],
      ['get_order', 1],
    ]);
    expect(body.flags.map((f) => f.kind).sort()).toEqual([
      'identical_retry',
      'unrepaired_invalid_input',
    ]);
    // Each flag's waste: the two calls after the first, the same two calls; together they are one loop that
    // wasted those two calls once (2 s: from the first call's end to the third's).
    expect(body.flags.map((f) => f.evidence.wasted?.calls)).toEqual([2, 2]);
    expect(body.wasted).toMatchObject({ loops: 1, calls: 2, modelTokens: 0 });
    expect(body.wasted.ms).toBeGreaterThan(1900);
    expect(body.wasted.ms).toBeLessThan(2100);
    expect(body.passed).toBe(true);
  });

  it('prints JUnit XML: one case per tool, one per --fail-on kind, failures where thresholds are crossed', async () => {
    const o = io();
    expect(
      await runCli(
        [
          'report',
          '--url',
          c.url,
          '--format',
          'junit',
          '--max-error-rate',
          '0.2',
          '--fail-on',
          'identical_retry',
          '--fail-on',
          'output_drift',
        ],
        o,
      ),
    ).toBe(1);
    const suite = junitSuite(o.stdout);
    expect(suite.tests).toBe('4');
    expect(suite.failures).toBe('2');
    const byName = Object.fromEntries(suite.testcase.map((t) => [`${t.classname}:${t.name}`, t]));
    expect(byName['toolscope.tools:get_order']?.failure?.message).toContain('error rate 100.0 %');
    expect(byName['toolscope.tools:search_docs']?.failure).toBeUndefined();
    expect(byName['toolscope.flags:identical_retry']?.failure?.message).toMatch(
      /^1 identical_retry flag\(s\), wasting 2 calls, /,
    );
    expect(byName['toolscope.flags:output_drift']?.failure).toBeUndefined();
  });

  it('reads a database file directly', async () => {
    const o = io();
    expect(await runCli(['report', '--db', c.dbPath, '--format', 'json'], o)).toBe(0);
    expect((JSON.parse(o.stdout) as { tools: unknown[] }).tools).toHaveLength(2);
  });

  it.each([
    [['report', '--db', '/nonexistent/x.db'], 'no database at'],
    [['report', '--url', 'http://127.0.0.1:9'], 'cannot reach'],
    [['report', '--format', 'pdf'], '--format:'],
    [['report', '--fail-on', 'nonsense'], '--fail-on.0:'],
    [['report', '--max-error-rate', '2'], '--max-error-rate:'],
    [['report', '--db', 'a', '--url', 'http://x'], 'use --db or --url'],
    [['report', '--baseline', 'b.json', '--max-p95-increase', 'lots'], '--max-p95-increase:'],
    [['report', '--fail-on-new', 'identical_retry'], '--fail-on-new: compares with a baseline'],
    [['report', '--baseline', 'b.json', '--fail-on-new', 'loops'], '--fail-on-new.0:'],
  ])('exits 2 with a message for %j', async (argv, message) => {
    const o = io();
    expect(await runCli(argv, o)).toBe(2);
    expect(o.stderr).toContain(message);
  });
});

describe('toolscope ci', () => {
  // The program as plain JavaScript against the built packages (built.ts): no loader to start in each run.
  const program = builtProgram(fileURLToPath(new URL('./fixtures/ci-program.ts', import.meta.url)));
  const run = (args: string[], exit = '0') => {
    const o = io({ ...process.env, CI_PROGRAM_EXIT: exit });
    return runCli(['ci', ...args, '--', process.execPath, program], o).then((code) => ({
      code,
      o,
    }));
  };

  it('runs the program against a temporary collector and reports what it sent', async () => {
    const { code, o } = await run(['--format', 'json']);
    expect(o.stderr).toContain('toolscope ci: collector on http://127.0.0.1:');
    expect(code).toBe(0);
    const body = JSON.parse(o.stdout) as {
      tools: { name: string; calls: number; errors: number }[];
      flags: { kind: string }[];
    };
    expect(body.tools).toEqual([
      expect.objectContaining({ name: 'search_docs', calls: 5, errors: 0 }),
      expect.objectContaining({ name: 'get_order', calls: 3, errors: 3 }),
    ]);
    expect(body.flags.map((f) => f.kind).sort()).toEqual([
      'identical_retry',
      'unrepaired_invalid_input',
    ]);
  }, 30_000);

  it('keeps the command output out of stdout, so --format junit > file is the report alone; --output writes it', async () => {
    const { code, o } = await run(['--format', 'junit']);
    expect(code).toBe(0);
    expect(o.stderr).toContain('not part of the report');
    expect(o.stderr).toContain('program stderr line');
    expect(o.stdout).not.toContain('program-output');
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
    expect(XMLValidator.validate(o.stdout)).toBe(true);
    expect(parser.parse(o.stdout).testsuites.testsuite.tests).toBe('2');
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-junit-'));
    try {
      const file = join(dir, 'junit.xml');
      const written = await run(['--format', 'junit', '--output', file]);
      expect(written.code).toBe(0);
      expect(written.o.stdout).toBe('');
      const xml = readFileSync(file, 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(parser.parse(xml).testsuites.testsuite.tests).toBe('2');
      const reportFile = join(dir, 'report.xml');
      const r = io();
      expect(
        await runCli(['report', '--url', c.url, '--format', 'junit', '--output', reportFile], r),
      ).toBe(0);
      expect(r.stdout).toBe('');
      expect(XMLValidator.validate(readFileSync(reportFile, 'utf8'))).toBe(true);
      expect(
        await runCli(['report', '--url', c.url, '--output', join(dir, 'missing', 'x.md')], io()),
      ).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('exits 1 when a threshold is crossed, and with the command code when it failed', async () => {
    expect((await run(['--fail-on', 'identical_retry'])).code).toBe(1);
    const failed = await run([], '3');
    expect(failed.code).toBe(3);
    expect(failed.o.stderr).toContain('exited with code 3');
    expect(await runCli(['ci', '--format', 'json'], io())).toBe(2);
  }, 60_000);
});
