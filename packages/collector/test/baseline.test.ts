// `toolscope ci|report --baseline`: a baseline from one run of an instrumented program, a second run with one
// tool's error rate and p95 up, a new loop and a changed contract, then the Markdown, JSON, JUnit and SARIF
// outputs (SARIF checked against the published 2.1.0 schema) and the exit code of each threshold; a baseline
// of the older, unversioned report format read the same way, and baselines that must be refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { builtProgram } from './built.js';
import { captureIo as io, postJson, startTestCollector, type TestCollector } from './harness.js';
import { junitSuite } from './junit-xml.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
// The program as plain JavaScript against the built packages (built.ts): no loader to start in each run.
const program = builtProgram(fixture('baseline-program.ts'));
// The key the format-1 fixture was written with: input hashes match across runs only under one key.
const HASH_KEY = 'baseline-test-key-0123456789';
const FORMAT_1 = fixture('baseline-format-1.json');

const dir = mkdtempSync(join(tmpdir(), 'toolscope-baseline-'));
const main = join(dir, 'main.json');
const prJson = join(dir, 'pr.json');
// The name startTestCollector serves from `dir`: after the run, most reports ask a collector over this store.
const prDb = join(dir, 'toolscope.db');
const summary = join(dir, 'summary.md');
let served: TestCollector;
afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
type Delta = {
  baseline: { file: string; formatVersion: number };
  tools: {
    name: string;
    errorRate: Json;
    p95Ms: { relative: number | null };
    resultTokensP95: { relative: number | null };
    codesAppeared: string[];
  }[];
  toolsAdded: string[];
  toolsGone: string[];
  contractsChanged:
    | { tool: string; versionChanged: boolean; paths: string[] | null; pathsFrom: string | null }[]
    | null;
  newFlags: { kind: string; tool: string; traceId?: string; evidence: { inputHash?: string } }[];
  flagsGone: number;
  breaches: { threshold: string; tool: string; message: string }[];
};
type Report = {
  formatVersion: number;
  flags: { evidence: { inputHash?: string } }[];
  contractSchemas: Json[];
  baseline?: Delta;
};

const ciRun = async (run: 'main' | 'pr', args: string[]) => {
  const o = io({ ...process.env, BASELINE_RUN: run, TOOLSCOPE_HASH_KEY: HASH_KEY });
  const command = ['--', process.execPath, program];
  return { code: await runCli(['ci', ...args, ...command], o), o };
};
/** `toolscope report` over the second run's store, read directly or (`via: 'url'`) through the JSON API. */
const report = async (args: string[], env: NodeJS.ProcessEnv = {}, via: 'db' | 'url' = 'db') => {
  const o = io(env);
  const source = via === 'db' ? ['--db', prDb] : ['--url', served.url];
  return { code: await runCli(['report', ...source, ...args], o), o };
};
const jsonOf = async (args: string[]) => {
  const r = await report([...args, '--format', 'json'], {}, 'url');
  return { code: r.code, body: JSON.parse(r.o.stdout) as Report };
};

/** Contract spans of search_docs (as the instrument sends them), one per hash, with output properties of their own. */
function contractSpans(list: { hash: string; properties: Json; atMs: number }[]) {
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'docs')] },
        scopeSpans: [
          {
            scope: { name: '@toolscope/instrument' },
            spans: list.map((c, i) => {
              const entry = JSON.stringify({
                name: 'search_docs',
                description: 'Search the docs',
                inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
                outputSchema: { type: 'object', properties: c.properties },
              });
              const start = String(BigInt(c.atMs) * 1_000_000n);
              return {
                traceId: `${'c'.repeat(31)}${i}`,
                spanId: `${'d'.repeat(15)}${i}`,
                name: 'tool_contract search_docs',
                kind: 1,
                startTimeUnixNano: start,
                endTimeUnixNano: start,
                attributes: [
                  str('toolscope.contract.name', 'search_docs'),
                  str('toolscope.contract.version', '1'),
                  str('toolscope.contract.hash', c.hash),
                  str('toolscope.contract.entry', entry),
                  { key: 'toolscope.contract.bytes', value: { intValue: entry.length } },
                  str('toolscope.contract.origin', 'defineTool'),
                ],
              };
            }),
          },
        ],
      },
    ],
  };
}

let prCi: Report;
beforeAll(async () => {
  const first = await ciRun('main', ['--format', 'json', '--output', main]);
  expect(first.code, first.o.stderr).toBe(0);
  const second = await ciRun('pr', [
    ...['--db', prDb, '--baseline', main, '--format', 'json', '--output', prJson],
  ]);
  // Without thresholds on change a comparison passes, whatever it shows.
  expect(second.code, second.o.stderr).toBe(0);
  writeFileSync(summary, '');
  prCi = JSON.parse(readFileSync(prJson, 'utf8')) as Report;
  served = await startTestCollector({}, dir);
  // Two runs of the program under `toolscope ci`: seconds, more on a loaded machine; this only stops a hang.
}, 180_000);

describe('a run compared with its baseline', () => {
  it('JSON: per-tool changes, tools and codes that came or went, the changed contract, the new loop', () => {
    expect(prCi.formatVersion).toBe(2);
    const d = prCi.baseline as Delta;
    expect(d.baseline).toEqual({ file: main, formatVersion: 2 });
    const tool = (name: string) => d.tools.find((t) => t.name === name);
    expect(tool('get_order')?.errorRate).toEqual({
      before: 0,
      after: 0.5,
      change: 0.5,
      relative: null,
    });
    expect(tool('get_order')?.codesAppeared).toEqual(['FAILED']);
    expect(tool('get_order')?.p95Ms.relative).toBeGreaterThan(1);
    expect(tool('search_docs')?.resultTokensP95.relative).toBeGreaterThan(5);
    expect(d.toolsAdded).toEqual(['track_parcel']);
    expect(d.toolsGone).toEqual(['list_catalogue']);
    expect(d.contractsChanged).toEqual([
      {
        tool: 'search_docs',
        before: { version: '1', schemaHash: expect.any(String) },
        after: { version: '1', schemaHash: expect.any(String) },
        versionChanged: false,
        paths: ['output.snippet: added', 'output.required: added "snippet"'],
        pathsFrom: 'baseline',
      },
    ]);
    // main had check_stock's loop on one SKU; the second run has it again and a new one on another SKU.
    expect(d.newFlags.map((f) => `${f.kind}:${f.tool}`).sort()).toEqual([
      'identical_retry:check_stock',
      'retry_after_non_retryable:check_stock',
    ]);
    const mainFlags = (JSON.parse(readFileSync(main, 'utf8')) as Report).flags;
    const oldInput = mainFlags[0]?.evidence.inputHash;
    expect(oldInput).toMatch(/^[0-9a-f]{16}$/);
    expect(d.newFlags.every((f) => f.evidence.inputHash && f.evidence.inputHash !== oldInput)).toBe(
      true,
    );
    expect(prCi.flags).toHaveLength(4);
    expect(d.flagsGone).toBe(0);
  });

  it('Markdown: ▲/▼ with absolute and relative change, the contract paths, each new flag with its trace', async () => {
    const { code, o } = await report(['--baseline', main], { GITHUB_STEP_SUMMARY: summary });
    expect(code).toBe(0);
    const md = o.stdout;
    expect(readFileSync(summary, 'utf8')).toBe(md);
    expect(md).toContain(`### Against the baseline (${main})`);
    expect(md).toMatch(/\| get_order \| 4 \(=\) \| 50\.0 % ▲ \+50\.0 pp \| [0-9.]+ ms ▲ \+/);
    expect(md).toMatch(
      /\| search_docs \| 3 \(=\) \| 0\.0 % \(=\) \| .+ \| [0-9,]+ ▲ \+[0-9,]+ \(\+/,
    );
    expect(md).toContain('- Tools added: track_parcel');
    expect(md).toContain('- Tools gone: list_catalogue');
    expect(md).toContain('- get_order: FAILED appeared');
    expect(md).toMatch(
      /\*\*search_docs\*\* `[0-9a-f]{16}` → `[0-9a-f]{16}` \(⚠️ same version 1\): `output\.snippet: added`/,
    );
    const loop = prCi.baseline?.newFlags.find((f) => f.kind === 'identical_retry');
    expect(md).toContain(`**identical_retry** · check_stock trace \`${loop?.traceId}\``);
    expect(md).toContain('#### New flags (2)');
    expect(md).not.toContain('Thresholds crossed');
  });

  it.each([
    [[], 0],
    [['--max-error-rate-increase', '0.2'], 1],
    [['--max-error-rate-increase', '0.6'], 0],
    [['--max-p95-increase', '0.5'], 1],
    [['--max-p95-increase', '1000'], 0],
    [['--max-result-tokens-increase', '1.5'], 1],
    [['--max-result-tokens-increase', '100'], 0],
    [['--fail-on-new', 'identical_retry'], 1],
    [['--fail-on-new', 'version_skew,output_drift'], 0],
    [['--fail-on-contract-change'], 1],
  ])('exit code with %j', async (args, expected) => {
    const { code, body } = await jsonOf(['--baseline', main, ...args]);
    expect(code).toBe(expected);
    expect(body.baseline?.breaches.length ? 1 : 0).toBe(expected);
  });

  it('names each crossed threshold with its numbers', async () => {
    const { body } = await jsonOf([
      ...['--baseline', main, '--max-error-rate-increase', '0.2', '--max-p95-increase', '0.5'],
      ...['--max-result-tokens-increase', '1.5', '--fail-on-new', 'identical_retry'],
      '--fail-on-contract-change',
    ]);
    const by = (t: string) => body.baseline?.breaches.filter((b) => b.threshold === t) ?? [];
    expect(by('max-error-rate-increase').map((b) => b.message)).toEqual([
      'get_order: error rate 50.0 % (was 0.0 %, +50.0 pp) rose more than +20.0 pp',
    ]);
    expect(by('max-p95-increase').map((b) => b.tool)).toContain('get_order');
    expect(by('max-result-tokens-increase').map((b) => b.tool)).toEqual(['search_docs']);
    expect(by('fail-on-new').map((b) => b.tool)).toEqual(['check_stock']);
    expect(by('fail-on-contract-change')[0]?.message).toMatch(
      /^search_docs: contract [0-9a-f]{16} → [0-9a-f]{16} without a version change \(still 1\): output\.snippet: added/,
    );
  });

  it('passes every threshold against a baseline of itself', async () => {
    const { code, body } = await jsonOf([
      ...['--baseline', prJson, '--max-error-rate-increase', '0', '--max-p95-increase', '0'],
      ...['--max-result-tokens-increase', '0', '--fail-on-new', 'identical_retry'],
      '--fail-on-contract-change',
    ]);
    expect(body.baseline?.breaches).toEqual([]);
    expect(body.baseline?.newFlags).toEqual([]);
    expect(body.baseline?.contractsChanged).toEqual([]);
    expect(code).toBe(0);
  });

  it('JUnit: one case per tool and per threshold, the deltas in the failure messages', async () => {
    const { code, o } = await report([
      ...['--baseline', main, '--format', 'junit', '--max-error-rate-increase', '0.2'],
      ...['--max-result-tokens-increase', '100', '--fail-on-new', 'identical_retry'],
      '--fail-on-contract-change',
    ]);
    expect(code).toBe(1);
    const suite = junitSuite(o.stdout);
    const byName = Object.fromEntries(
      suite.testcase.map((t) => [`${t.classname}:${t.name}`, t.failure?.message ?? null]),
    );
    expect(byName).toEqual({
      'toolscope.tools:check_stock': null,
      'toolscope.tools:get_order':
        'get_order: error rate 50.0 % (was 0.0 %, +50.0 pp) rose more than +20.0 pp',
      'toolscope.tools:search_docs': null,
      'toolscope.tools:track_parcel': null,
      'toolscope.thresholds:max-error-rate-increase':
        'get_order: error rate 50.0 % (was 0.0 %, +50.0 pp) rose more than +20.0 pp',
      'toolscope.thresholds:max-result-tokens-increase': null,
      'toolscope.new-flags:identical_retry': expect.stringMatching(
        /^check_stock: new identical_retry \(trace [0-9a-f]{32}\)/,
      ),
      'toolscope.contracts:fail-on-contract-change':
        expect.stringContaining('output.snippet: added'),
    });
    expect([suite.tests, suite.failures]).toEqual(['8', '4']);
  });

  it('SARIF: valid against the 2.1.0 schema, one result per new flag and crossed threshold', async () => {
    const schema = JSON.parse(readFileSync(fixture('sarif/sarif-schema-2.1.0.json'), 'utf8'));
    const ajv = new Ajv({ allErrors: true, strict: false });
    // A CommonJS module: its default export is `module.exports`, whose `default` is the plugin.
    formats.default(ajv);
    const validate = ajv.compile(schema);
    const env = { GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/agent.yml@refs/pull/7/merge' };
    const { code, o } = await report(
      [
        ...['--baseline', main, '--format', 'sarif', '--max-error-rate-increase', '0.2'],
        ...['--fail-on-new', 'identical_retry', '--fail-on-contract-change'],
      ],
      env,
    );
    expect(code).toBe(1);
    const log = JSON.parse(o.stdout);
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    const run = log.runs[0] as {
      tool: { driver: { rules: { id: string }[] } };
      results: {
        ruleId: string;
        ruleIndex: number;
        level: string;
        message: { text: string };
        locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
      }[];
    };
    expect(run.results.map((r) => `${r.ruleId}:${r.level}`).sort()).toEqual([
      'fail-on-contract-change:error',
      'identical_retry:error',
      'max-error-rate-increase:error',
      'retry_after_non_retryable:warning',
    ]);
    for (const r of run.results) {
      expect(run.tool.driver.rules[r.ruleIndex]?.id).toBe(r.ruleId);
      expect(r.locations[0]?.physicalLocation.artifactLocation.uri).toBe(
        '.github/workflows/agent.yml',
      );
    }
    // Without a baseline: every flag is a result, and the log is as valid.
    const plain = await report(['--format', 'sarif']);
    const all = JSON.parse(plain.o.stdout);
    expect(validate(all), JSON.stringify(validate.errors)).toBe(true);
    expect(all.runs[0].results).toHaveLength(4);
  });
});

describe('baselines of other formats', () => {
  it('reads a report of format 1 (no formatVersion) as it meant, and says that it carries no schemas', async () => {
    const { code, body } = await jsonOf([
      '--baseline',
      FORMAT_1,
      '--fail-on-new',
      'identical_retry',
    ]);
    expect(code).toBe(1);
    const d = body.baseline as Delta;
    expect(d.baseline.formatVersion).toBe(1);
    const now = prCi.baseline as Delta;
    expect(d.tools.map((t) => [t.name, t.errorRate])).toEqual(
      now.tools.map((t) => [t.name, t.errorRate]),
    );
    expect(d.newFlags.map((f) => f.evidence.inputHash)).toEqual(
      now.newFlags.map((f) => f.evidence.inputHash),
    );
    expect(d.contractsChanged).toEqual([
      expect.objectContaining({ tool: 'search_docs', paths: null, pathsFrom: null }),
    ]);
    const md = await report(['--baseline', FORMAT_1]);
    expect(md.o.stdout).toContain('changed paths unknown');
  });

  it('reads what an older format-1 report lacks (contracts, result tokens) as unknown, never as zero', async () => {
    const old = JSON.parse(readFileSync(FORMAT_1, 'utf8')) as {
      tools: Json[];
      contracts?: unknown;
    };
    delete old.contracts;
    for (const t of old.tools) {
      delete t.resultTokensP95;
      delete t.schemaTokens;
    }
    const file = join(dir, 'older.json');
    writeFileSync(file, JSON.stringify(old));
    const { code, body } = await jsonOf([
      ...['--baseline', file, '--max-result-tokens-increase', '0'],
      '--fail-on-contract-change',
    ]);
    expect(code).toBe(0);
    const d = body.baseline as Delta;
    expect(d.contractsChanged).toBeNull();
    const search = d.tools.find((t) => t.name === 'search_docs');
    expect(search?.resultTokensP95).toMatchObject({ before: null, change: null, relative: null });
    const md = await report(['--baseline', file], {}, 'url');
    expect(md.o.stdout).toContain(
      'The baseline lists no contracts: contract changes cannot be told.',
    );
    expect(md.o.stdout).toMatch(/\| search_docs \| .* \| [0-9,]+ \(new\) \| [0-9,]+ \(new\) \|/);
  });

  it('takes the changed paths from the catalog of a collector that has both contracts (GET …/contracts/diff)', async () => {
    const old = (JSON.parse(readFileSync(FORMAT_1, 'utf8')) as { contracts: Json[] }).contracts;
    const was = old.find((c) => c.name === 'search_docs')?.schemaHash as string;
    const c = await startTestCollector();
    try {
      const now = Date.now();
      const body = contractSpans([
        { hash: was, properties: { hits: { type: 'number' } }, atMs: now - 60_000 },
        { hash: 'beefbeefbeefbeef', properties: { hits: { type: 'string' } }, atMs: now - 1_000 },
      ]);
      expect((await postJson(c.url, body)).status).toBe(200);
      const o = io();
      expect(
        await runCli(['report', '--url', c.url, '--baseline', FORMAT_1, '--format', 'json'], o),
      ).toBe(0);
      const d = (JSON.parse(o.stdout) as Report).baseline as Delta;
      expect(d.contractsChanged?.find((x) => x.tool === 'search_docs')).toMatchObject({
        paths: ['output.hits.type: changed'],
        pathsFrom: 'catalog',
      });
    } finally {
      await c.stop();
    }
  });

  it.each([
    [{ formatVersion: 4, tools: [], flags: [], passed: true }, 'is report format 4, newer than'],
    [
      { formatVersion: 3, tools: [], flags: [], passed: true },
      'is report format 3 but names no client',
    ],
    [{ formatVersion: 'two', tools: [] }, 'formatVersion "two" is not a report format'],
    [[1, 2], 'is not a toolscope JSON report'],
    [
      { tools: [{ name: 'x', calls: 1, errorRate: 'high', p95Ms: 1, codes: {} }], flags: [] },
      'format 1: tools.0.errorRate',
    ],
  ])('refuses %j with a clear message (exit 2)', async (content, message) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(content));
    const { code, o } = await report(['--baseline', file]);
    expect(code).toBe(2);
    expect(o.stderr).toContain(message);
  });

  it('exits 2 for a missing or non-JSON baseline, and for a threshold on change without one', async () => {
    const xml = join(dir, 'junit.xml');
    writeFileSync(xml, '<?xml version="1.0"?><testsuites/>');
    expect((await report(['--baseline', xml])).o.stderr).toContain('is not JSON');
    expect((await report(['--baseline', join(dir, 'none.json')])).o.stderr).toContain(
      'no baseline at',
    );
    const usage = await report(['--max-p95-increase', '0.5']);
    expect(usage.code).toBe(2);
    expect(usage.o.stderr).toContain('--max-p95-increase: compares with a baseline');
    // ci checks the baseline before it runs the command.
    const ci = await ciRun('pr', ['--baseline', join(dir, 'none.json')]);
    expect(ci.code).toBe(2);
    expect(ci.o.stderr).not.toContain('running');
  });
});
