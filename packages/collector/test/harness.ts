// Shared fixtures of the collector tests: a collector on a loopback port with a temporary SQLite file, real
// OTel exporters pointed at it, and small request helpers.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { CliIo } from '../src/cli/io.js';
import { type Collector, type CollectorOptions, startCollector } from '../src/index.js';
import { builtCli } from './built.js';

export type TestCollector = Collector & { dir: string; dbPath: string; stop(): Promise<void> };

export async function startTestCollector(
  options: Partial<CollectorOptions> = {},
  dir?: string,
): Promise<TestCollector> {
  const folder = dir ?? mkdtempSync(join(tmpdir(), 'toolscope-test-'));
  const dbPath = join(folder, 'toolscope.db');
  const collector = await startCollector({ db: dbPath, port: 0, ...options });
  return {
    ...collector,
    dir: folder,
    dbPath,
    stop: async () => {
      await collector.close();
      if (!dir) rmSync(folder, { recursive: true, force: true });
    },
  };
}

export type ExporterKind = 'proto' | 'json';

/** A tracer provider exporting to the collector with the real OTLP/HTTP exporter of the given kind. */
export function exportingProvider(
  url: string,
  kind: ExporterKind,
  opts: { gzip?: boolean; headers?: Record<string, string> } = {},
) {
  const config = {
    url: `${url}/v1/traces`,
    ...(opts.gzip ? { compression: 'gzip' as never } : {}),
    ...(opts.headers ? { headers: opts.headers } : {}),
  };
  const exporter: SpanExporter =
    kind === 'proto' ? new ProtoExporter(config) : new JsonExporter(config);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': `svc-${kind}` }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, { maxExportBatchSize: 512, scheduledDelayMillis: 50 }),
    ],
  });
  return { provider, exporter };
}

export async function getJson<T = unknown>(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

/** An OTLP/JSON body with `count` spans of one trace; ids derive from `seed` so bodies can be re-sent. */
export function jsonBody(
  seed: number,
  count: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
  startMs = Date.now(),
) {
  const traceId = hex(seed, 32);
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'json-svc' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: Array.from({ length: count }, (_, i) => ({
              traceId,
              spanId: hex(seed * 1000 + i + 1, 16),
              name: `span-${i}`,
              kind: 1,
              startTimeUnixNano: String(BigInt(startMs + i) * 1_000_000n),
              endTimeUnixNano: String(BigInt(startMs + i + 5) * 1_000_000n),
              attributes: [],
              ...extra(i),
            })),
          },
        ],
      },
    ],
  };
}

/** `count` tool spans of one trace (id from `seed`), each with a `payloadBytes` string attribute. */
export const toolBatch = (seed: number, count: number, payloadBytes: number) =>
  jsonBody(seed, count, (i) => ({
    attributes: [
      { key: 'gen_ai.tool.name', value: { stringValue: 'get_order' } },
      { key: 'payload', value: { stringValue: `${seed}-${i}-`.padEnd(payloadBytes, 'x') } },
    ],
  }));

/** Whether the trace of `jsonBody(seed, …)` is stored. */
export const traceStored = async (url: string, seed: number) =>
  (await fetch(`${url}/api/traces/${hex(seed, 32)}`)).status === 200;

const cliMain = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

/**
 * `toolscope serve` as its own process (tsx as an in-process loader, so a signal to it reaches the writer
 * thread too), resolved once it listens. `built`: from the packages as they install (built.ts), a third of the
 * CPU of a start from sources, for tests that start it many times and measure no memory.
 */
export function startServe(
  db: string,
  extraArgs: string[] = [],
  from: 'sources' | 'built' = 'sources',
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const [node, cli] = from === 'built' ? builtCli() : [process.execPath, cliMain];
  const child = spawn(
    node as string,
    [
      ...(from === 'built' ? [] : ['--conditions=@toolscope/source', '--import', 'tsx']),
      cli as string,
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--grpc-port',
      '0',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr?.resume();
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ child, url: m[1], output: () => out });
    });
    child.on('exit', (code) =>
      reject(new Error(`serve exited (${code}) before listening: ${out}`)),
    );
  });
}

/** `toolscope serve` expected to fail its start: its exit code and everything it printed. */
export function serveUntilExit(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=@toolscope/source', '--import', 'tsx', cliMain, 'serve', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A tool call to send as OTLP/JSON: every Toolscope attribute the detectors read. */
export type ToolCallSpec = {
  trace: number;
  tool?: string;
  version?: string;
  hash?: string;
  input: string;
  code?: string;
  retryable?: boolean;
  partialEffect?: boolean;
  effect?: 'read' | 'write';
  idempotencyKey?: string;
  conversation?: string;
  callId?: string;
  shape?: string;
  issues?: { path: string; code: string; message: string }[];
  /** toolscope.output.bytes and .tokens of the result. */
  output?: { bytes: number; tokens: number };
  /** toolscope.output.hash: the result's keyed hash. */
  outputHash?: string;
  /** toolscope.mcp.client.name and .version: the MCP client that made the call. */
  client?: { name: string; version?: string };
  atMs: number;
};

let spanSeq = 1;
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** An OTLP/JSON body of tool-call spans (ids derive from `trace` and a counter). */
export function otlpToolCalls(calls: ToolCallSpec[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'agent')] },
        scopeSpans: [
          {
            scope: { name: '@toolscope/instrument' },
            spans: calls.map((call) => {
              const tool = call.tool ?? 'get_order';
              const attrs: { key: string; value: Record<string, unknown> }[] = [
                str('gen_ai.tool.name', tool),
                str('toolscope.schema.version', call.version ?? '1'),
                str('toolscope.schema.hash', call.hash ?? 'aaaaaaaaaaaaaaaa'),
                str('toolscope.input.hash', call.input),
                str('toolscope.input.shape', call.shape ?? 'customerId:string'),
                str('toolscope.effect', call.effect ?? 'read'),
                {
                  key: 'toolscope.partial_effect',
                  value: { boolValue: call.partialEffect ?? false },
                },
              ];
              if (call.code) {
                attrs.push(str('toolscope.error.code', call.code), str('error.type', call.code));
                attrs.push({
                  key: 'toolscope.retryable',
                  value: { boolValue: call.retryable ?? false },
                });
              }
              if (call.idempotencyKey)
                attrs.push(str('toolscope.idempotency_key.hash', call.idempotencyKey));
              if (call.conversation) attrs.push(str('gen_ai.conversation.id', call.conversation));
              if (call.callId) attrs.push(str('gen_ai.tool.call.id', call.callId));
              if (call.output)
                attrs.push(
                  { key: 'toolscope.output.bytes', value: { intValue: call.output.bytes } },
                  { key: 'toolscope.output.tokens', value: { intValue: call.output.tokens } },
                );
              if (call.issues)
                attrs.push(str('toolscope.validation.issues', JSON.stringify(call.issues)));
              if (call.outputHash) attrs.push(str('toolscope.output.hash', call.outputHash));
              if (call.client) attrs.push(str('toolscope.mcp.client.name', call.client.name));
              if (call.client?.version)
                attrs.push(str('toolscope.mcp.client.version', call.client.version));
              const start = BigInt(call.atMs) * 1_000_000n;
              return {
                traceId: hex(call.trace, 32),
                spanId: hex(spanSeq++, 16),
                name: `execute_tool ${tool}`,
                kind: 1,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 2_000_000n),
                attributes: attrs,
                status: { code: call.code ? 2 : 0 },
              };
            }),
          },
        ],
      },
    ],
  };
}

/** A CLI io that keeps what a command prints. */
export function captureIo(env: NodeJS.ProcessEnv = {}): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    env,
    out: (t: string) => {
      io.stdout += t;
    },
    err: (t: string) => {
      io.stderr += t;
    },
    onSignal: () => {},
  };
  return io;
}
