// Regression fixtures end to end: a team's tool (a get_order like the example server's, in a scratch project under
// a temporary directory) records a trace with an INVALID_INPUT (capture off: the input is synthesized), an
// INVALID_OUTPUT (capture on: the output that broke the contract is kept, redacted) and a success; `toolscope
// fixtures` writes the files from the stored trace; vitest, run in the scratch project, passes them against the
// version that fails and reports the change against a version whose contract was fixed (and the reverse with
// --expect fixed); node:test does the same with --runner node. No secret of the calls appears in any file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './cli-run.js';
import { ROOT } from './processes.js';
import { linkModules, NOTES, ordersModule, run, SECRETS } from './scratch-project.js';

const tmp = mkdtempSync(join(tmpdir(), 'toolscope-fixtures-'));
const project = join(tmp, 'project');
const dbPath = join(tmp, 'fixtures.db');
let collector: Collector;
let traceId: string;

beforeAll(async () => {
  for (const variant of ['failing', 'fixed']) {
    mkdirSync(join(project, variant, 'src/tools'), { recursive: true });
    writeFileSync(join(project, variant, 'src/tools/orders.ts'), ordersModule(variant === 'fixed'));
  }
  linkModules(project);
  collector = await startCollector({ db: dbPath, port: 0 });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  // The very module the scratch project's tests import: its spans go to the global provider.
  const { getOrder } = (await import(join(project, 'failing/src/tools/orders.ts'))) as {
    getOrder: { call(input: unknown, o?: object): Promise<{ ok: boolean; code?: string }> };
  };
  const agent = provider.getTracer('agent').startSpan('agent.turn');
  await context.with(trace.setSpan(context.active(), agent), async () => {
    expect(await getOrder.call({ customerId: 42, notes: NOTES }, { capture: false })).toMatchObject(
      { code: 'INVALID_INPUT' },
    );
    expect(
      await getOrder.call({ customerId: 'cus_901', notes: NOTES }, { capture: true }),
    ).toMatchObject({ code: 'INVALID_OUTPUT' });
    expect(await getOrder.call({ customerId: 'cus_7' }, { capture: true })).toMatchObject({
      ok: true,
    });
  });
  agent.end();
  traceId = agent.spanContext().traceId;
  await provider.forceFlush();
  await provider.shutdown();
  trace.disable();
  context.disable();
}, 60_000);

afterAll(async () => {
  await collector?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * A child test run in the scratch project starts its own runner, transforms and runs, and ends on its own: this
 * bounds only a run that hangs.
 */
const CHILD_RUN_MS = 120_000;

const out = (variant: string, expect: string) => join(project, variant, `fixtures-${expect}`);
/** `toolscope fixtures` for the recorded trace, from `from` (--db or --url) into `dir`. */
const fixturesOfTrace = (from: string[], dir: string, more: string[]) =>
  cli(['fixtures', '--trace', traceId, ...from, '--out', dir, ...more]);
const toolSpec = (variant: string) => `${join(project, variant, 'src/tools/orders.js')}#getOrder`;

describe('toolscope fixtures', () => {
  it('writes one fixture file and one test per tool from a stored trace', async () => {
    // The store directly once; the others from the collector's API, which answers the same bytes (opening a
    // store starts its threads, a cost paid once is enough here).
    for (const variant of ['failing', 'fixed'])
      for (const expectation of ['recorded', 'fixed']) {
        const first = variant === 'failing' && expectation === 'recorded';
        const from = first ? ['--db', dbPath] : ['--url', collector.url];
        const r = await fixturesOfTrace(from, out(variant, expectation), [
          ...['--import', toolSpec(variant), '--expect', expectation],
        ]);
        expect(r.code, r.err).toBe(0);
        expect(r.out).toMatch(
          /get_order\.fixtures\.json: 3 cases \(2 failed, 1 with a synthesized input\)/,
        );
      }
    const file = JSON.parse(
      readFileSync(join(out('failing', 'recorded'), 'get_order.fixtures.json'), 'utf8'),
    );
    expect(file).toMatchObject({ formatVersion: 1, tool: 'get_order', from: { trace: traceId } });
    const [invalidInput, invalidOutput, ok] = file.cases;
    expect(invalidInput).toMatchObject({
      input: {
        synthesized: true,
        shape: 'customerId:number,notes:string',
        value: { customerId: 0, notes: 'sample' },
      },
      output: null,
      expected: {
        ok: false,
        code: 'INVALID_INPUT',
        issuePaths: ['customerId'],
        retryable: false,
        partialEffect: false,
      },
    });
    expect(invalidOutput).toMatchObject({
      input: { synthesized: false, redacted: true, value: { customerId: 'cus_901' } },
      output: {
        redacted: true,
        value: { orders: [{ status: 'on_hold', contact: '[REDACTED:email]' }] },
      },
      expected: { code: 'INVALID_OUTPUT', issuePaths: ['orders.0.status'] },
    });
    expect(ok).toMatchObject({
      expected: { ok: true, code: null },
      output: { value: { customerId: 'cus_7' } },
    });
    const test = readFileSync(
      join(out('failing', 'recorded'), 'get_order.fixtures.test.ts'),
      'utf8',
    );
    expect(test).toContain("import { getOrder } from '../src/tools/orders.js';");
    expect(test.split('\n').length).toBeLessThan(25);
  });

  it('lets no secret of the calls into any file it writes', () => {
    const files = [];
    for (const variant of ['failing', 'fixed'])
      for (const expectation of ['recorded', 'fixed'])
        for (const name of readdirSync(out(variant, expectation)))
          files.push(readFileSync(join(out(variant, expectation), name), 'utf8'));
    expect(files.length).toBe(8);
    for (const text of files) for (const secret of SECRETS) expect(text).not.toContain(secret);
    // And the digits of the card number in no other spacing either.
    for (const text of files) expect(text.replace(/\D/g, '')).not.toContain('4242424242424242');
  });

  it('gives the same bytes from the API, and over --url', async () => {
    const written = readFileSync(
      join(out('failing', 'recorded'), 'get_order.fixtures.json'),
      'utf8',
    );
    const res = await fetch(`${collector.url}/api/fixtures?trace=${traceId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="get_order.fixtures.json"',
    );
    expect(await res.text()).toBe(written);
    // Written over --url in the first test.
    const viaUrl = readFileSync(join(out('failing', 'fixed'), 'get_order.fixtures.json'), 'utf8');
    expect(viaUrl).toBe(written);
  });

  it("selects a tool's failing calls, and says why when there is nothing or the flags are wrong", async () => {
    const byCode = join(tmp, 'by-code');
    const r = await cli([
      'fixtures',
      '--tool',
      'get_order',
      '--code',
      'INVALID_OUTPUT',
      '--since',
      '1h',
      '--url',
      collector.url,
      '--out',
      byCode,
    ]);
    expect(r.code, r.err).toBe(0);
    const file = JSON.parse(readFileSync(join(byCode, 'get_order.fixtures.json'), 'utf8'));
    expect(file.cases.map((c: { expected: { code: string } }) => c.expected.code)).toEqual([
      'INVALID_OUTPUT',
    ]);
    const none = await cli(['fixtures', '--trace', 'f'.repeat(32), '--db', dbPath, '--out', tmp]);
    expect([none.code, none.err]).toEqual([
      1,
      `toolscope fixtures: trace ${'f'.repeat(32)} is not stored\n`,
    ]);
    for (const args of [
      ['--out', join(tmp, 'x')],
      ['--trace', traceId],
      ['--trace', traceId, '--flag', '0123456789abcdef', '--out', join(tmp, 'x')],
      ['--trace', traceId, '--out', join(tmp, 'x'), '--runner', 'mocha'],
      ['--trace', traceId, '--out', join(tmp, 'x'), '--import', './x.js#not-a-name'],
    ]) {
      const bad = await cli(['fixtures', ...args, '--db', dbPath]);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.err).toMatch(/^toolscope fixtures: --/);
    }
  });

  it(
    'passes against the failing version, reports the change against the fixed one, and the reverse (vitest)',
    async () => {
      const report = join(tmp, 'vitest.json');
      const r = await run(
        process.execPath,
        [
          join(ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--config',
          'vitest.config.mjs',
          '--reporter=json',
          `--outputFile=${report}`,
        ],
        project,
      );
      type Result = {
        name: string;
        assertionResults: { title: string; status: string; failureMessages: string[] }[];
      };
      const results = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: Result[] })
        .testResults;
      const statusOf = (variant: string, expectation: string) => {
        const file = results.find((f) => f.name.includes(`/${variant}/fixtures-${expectation}/`));
        return (file?.assertionResults ?? []).map((a) => [
          a.title.split(',')[0],
          a.status,
          a.failureMessages.join('\n'),
        ]);
      };
      expect(r.code, r.output).toBe(1);
      expect(statusOf('failing', 'recorded').map((s) => s.slice(0, 2))).toEqual([
        ['INVALID_INPUT at customerId (input synthesized)', 'passed'],
        ['INVALID_OUTPUT at orders.0.status', 'passed'],
        ['OK', 'passed'],
      ]);
      const changed = statusOf('fixed', 'recorded');
      expect(changed.map((s) => s.slice(0, 2))).toEqual([
        ['INVALID_INPUT at customerId (input synthesized)', 'failed'],
        ['INVALID_OUTPUT at orders.0.status', 'failed'],
        ['OK', 'passed'],
      ]);
      expect(changed[0]?.[2]).toMatch(
        /recorded INVALID_INPUT at customerId, today's input schema says succeeded: fixed \(synthesized input\); expected the recorded outcome/,
      );
      expect(changed[1]?.[2]).toMatch(
        /recorded INVALID_OUTPUT at orders\.0\.status, today's output schema says succeeded: fixed/,
      );
      expect(statusOf('fixed', 'fixed').map((s) => s[1])).toEqual(['passed', 'passed', 'passed']);
      expect(statusOf('failing', 'fixed').map((s) => s[1])).toEqual(['failed', 'failed', 'passed']);
    },
    CHILD_RUN_MS,
  );

  it(
    'writes a node:test file that runs the same cases (--runner node)',
    async () => {
      const dir = join(project, 'node-runner');
      const r = await fixturesOfTrace(['--db', dbPath], dir, [
        ...['--runner', 'node', '--import', toolSpec('failing')],
      ]);
      expect(r.code, r.err).toBe(0);
      const ran = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          '--conditions=@toolscope/source',
          '--test',
          join(dir, 'get_order.fixtures.test.ts'),
        ],
        project,
      );
      expect(ran.code, ran.output).toBe(0);
      expect(ran.output).toMatch(/# pass 3/);
    },
    CHILD_RUN_MS,
  );
});
