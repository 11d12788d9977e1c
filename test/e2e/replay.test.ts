// `toolscope replay` end to end through a real MCP client: fixtures written by `toolscope fixtures` from stored
// traces, replayed against the example server (over stdio, and its canary over Streamable HTTP) and against a
// third-party server from npm (@modelcontextprotocol/server-filesystem): read tools replayed, a write skipped
// with its reason unless --allow-writes, the outcome table, each format and the exit codes.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import { playScene } from '@toolscope/example-orders-mcp/play';
import { instrumentMcpClient } from '@toolscope/instrument';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './cli-run.js';
import { ordersInProcess } from './orders-in-process.js';
import { ROOT, start, stopAll } from './processes.js';

const tmp = mkdtempSync(join(tmpdir(), 'toolscope-replay-'));
const fsRoot = join(tmp, 'files');
const FS_SERVER = join(
  dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json'),
  ),
  'dist/index.js',
);
const ORDERS_SERVER = `"${process.execPath}" --import tsx --conditions=@toolscope/source ${ROOT}examples/orders-mcp/src/server.ts`;
const FILES_SERVER = `"${process.execPath}" ${FS_SERVER} ${fsRoot}`;
let collector: Collector;
const endpointBefore = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

/** The fixture files `toolscope fixtures` writes for a trace, into a folder of their own. */
async function fixturesOf(traceId: string, name: string): Promise<string[]> {
  const dir = join(tmp, name);
  const r = await cli(['fixtures', '--trace', traceId, '--url', collector.url, '--out', dir]);
  expect(r.code, r.err).toBe(0);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

/** Calls of the filesystem server through an instrumented client, capture on: a missing file, a listing, a move. */
async function fileCalls(): Promise<string> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  const client = instrumentMcpClient(new Client({ name: 'files-agent', version: '1' }), {
    tracerProvider: provider,
    captureContent: true,
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FS_SERVER, fsRoot],
      stderr: 'pipe',
    }),
  );
  const agent = provider.getTracer('agent').startSpan('agent.turn');
  await context.with(trace.setSpan(context.active(), agent), async () => {
    const missing = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(fsRoot, 'missing.txt') },
    });
    expect(missing.isError).toBe(true);
    await client.callTool({ name: 'list_directory', arguments: { path: fsRoot } });
    const moved = await client.callTool({
      name: 'move_file',
      arguments: { source: join(fsRoot, 'notes.txt'), destination: join(fsRoot, 'moved.txt') },
    });
    expect(moved.isError).toBeFalsy();
  });
  agent.end();
  await client.close();
  await new Promise((resolve) => setImmediate(resolve));
  await provider.forceFlush();
  await provider.shutdown();
  context.disable();
  return agent.spanContext().traceId;
}

let ordersFiles: string[];
let filesFiles: string[];

beforeAll(async () => {
  mkdirSync(fsRoot);
  writeFileSync(join(fsRoot, 'notes.txt'), 'remember the milk\n');
  collector = await startCollector({ db: join(tmp, 'replay.db'), port: 0 });
  // The servers replay starts send their spans here, not to whatever listens on the default port.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
  const orders = await ordersInProcess([collector.url], true);
  const { traceIds } = await playScene(
    {
      id: 'replay',
      title: 'calls to replay',
      turns: [
        [
          { server: 'stable', tool: 'get_order', args: { customerId: 42 } },
          { server: 'stable', tool: 'get_order', args: { customerId: 'cus_901' } },
          { server: 'stable', tool: 'get_order', args: { customerId: 'cus_7' } },
          { server: 'stable', tool: 'order_intent', args: { sku: 'sku_gone', quantity: 1 } },
          { server: 'stable', tool: 'catalogue_list', args: { minPrice: 0, maxPrice: 20 } },
        ],
      ],
    },
    orders.player,
  );
  await orders.flush();
  await orders.close();
  ordersFiles = await fixturesOf(traceIds[0] as string, 'orders');
  filesFiles = await fixturesOf(await fileCalls(), 'files');
}, 60_000);

afterAll(async () => {
  if (endpointBefore === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpointBefore;
  await stopAll();
  await collector?.close();
  rmSync(tmp, { recursive: true, force: true });
});

type Replayed = {
  passed: boolean;
  counts: Record<string, number>;
  cases: {
    tool: string;
    title: string;
    result: { kind: string; outcome?: string; reason?: string };
  }[];
};
const outcomes = (r: Replayed) =>
  r.cases.map((c) => [c.tool, c.title.split(',')[0], c.result.outcome ?? c.result.kind]);

describe('toolscope replay against the example server', () => {
  it('replays the read tools over stdio, skips the write with its reason, exit 0 when all is as recorded', async () => {
    const r = await cli(['replay', ...ordersFiles, '--server', ORDERS_SERVER]);
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.out).toContain('✅');
    expect(r.out).toContain(
      '5 cases: same 4, fixed 0, changed 0, new failure 0, not reproduced 0, skipped 1.',
    );
    expect(r.out).toContain('| get_order | INVALID_INPUT at customerId, ');
    expect(r.out).toMatch(
      /\| INVALID_OUTPUT at orders\.0\.status \| INVALID_OUTPUT at orders\.0\.status \| same \|/,
    );
    expect(r.out).toMatch(
      /- order_intent `[0-9a-f]{16}`: not known to be safe to repeat \(readOnlyHint false, idempotentHint not set, effect write\): --allow-writes runs it/,
    );
  });

  it("names what changed on the canary over Streamable HTTP, in every format, with report's exit codes", async () => {
    const server = start(
      'examples/orders-mcp/src/server.ts',
      ['--http', '0', '--variant', 'canary'],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      },
    );
    const url = (await server.waitFor(/listening on (\S+)/))[1] as string;
    const json = await cli(['replay', ...ordersFiles, '--url', url, '--format', 'json']);
    expect(json.code, json.err).toBe(1);
    const body = JSON.parse(json.out) as Replayed;
    expect(outcomes(body)).toEqual([
      ['catalogue_list', 'OK', 'new failure'],
      ['get_order', 'INVALID_INPUT at customerId', 'same'],
      ['get_order', 'INVALID_OUTPUT at orders.0.status', 'same'],
      ['get_order', 'OK', 'same'],
      ['order_intent', 'REJECTED', 'skipped'],
    ]);
    const junit = await cli([
      'replay',
      ...ordersFiles,
      '--url',
      url,
      '--format',
      'junit',
      '--allow-writes',
    ]);
    expect(junit.code).toBe(1);
    const suite =
      /<testsuite name="toolscope-replay" tests="(\d+)" failures="(\d+)" skipped="(\d+)"/.exec(
        junit.out,
      );
    expect(suite?.slice(1)).toEqual(['5', '1', '0']);
    expect(junit.out).toMatch(
      /<failure message="recorded succeeded, now INVALID_INPUT[^"]*: new failure/,
    );
    const sarif = await cli([
      'replay',
      ...ordersFiles,
      '--url',
      url,
      '--format',
      'sarif',
      '--expect',
      'fixed',
    ]);
    expect(sarif.code).toBe(1);
    const run = JSON.parse(sarif.out).runs[0];
    expect(run.results.map((x: { ruleId: string }) => x.ruleId).sort()).toEqual([
      'new-failure',
      'same',
      'same',
    ]);
  });
});

describe('toolscope replay against a third-party server (server-filesystem)', () => {
  it('replays its read tools and skips its move (idempotentHint false)', async () => {
    const r = await cli(['replay', ...filesFiles, '--server', FILES_SERVER, '--format', 'json']);
    expect(r.code, r.err).toBe(0);
    expect(outcomes(JSON.parse(r.out) as Replayed)).toEqual([
      ['list_directory', 'OK', 'same'],
      ['move_file', 'OK', 'skipped'],
      ['read_text_file', 'FAILED', 'same'],
    ]);
    expect(r.out).toContain('readOnlyHint false, idempotentHint false');
  });

  it('says fixed once the missing file exists: exit 1 for --expect recorded, 0 for --expect fixed', async () => {
    writeFileSync(join(fsRoot, 'missing.txt'), 'here now\n');
    const recorded = await cli(['replay', ...filesFiles, '--server', FILES_SERVER]);
    expect(recorded.code).toBe(1);
    expect(recorded.out).toMatch(
      /\| read_text_file \| FAILED, .* \| FAILED \| succeeded \| fixed ❌ \|/,
    );
    const fixed = await cli([
      'replay',
      ...filesFiles,
      '--server',
      FILES_SERVER,
      '--expect',
      'fixed',
    ]);
    expect(fixed.code, fixed.out).toBe(0);
  });

  it('exits 2 for usage, file and connection errors', async () => {
    expect((await cli(['replay', '--server', FILES_SERVER])).code).toBe(2);
    expect(
      (await cli(['replay', ...filesFiles, '--server', 'x', '--url', 'http://127.0.0.1:9'])).code,
    ).toBe(2);
    expect((await cli(['replay', join(tmp, 'nope.json'), '--server', FILES_SERVER])).code).toBe(2);
    const down = await cli([
      'replay',
      ...filesFiles,
      '--server',
      `"${process.execPath}" -e "process.exit(3)"`,
    ]);
    expect(down.code).toBe(2);
    expect(down.err).toMatch(/^toolscope replay: cannot connect to /);
  });
});
