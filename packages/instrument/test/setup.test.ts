// `setupToolscope` exports over real OTLP/HTTP to a loopback receiver, honours OTEL_* variables and
// flushes a short program's last spans when it exits.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './otlp-receiver.js';

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let endpoint = '';
let received: Awaited<ReturnType<typeof startReceiver>>['received'] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  endpoint = receiver.endpoint;
  received = receiver.received;
});
afterAll(() => receiver.close());

const child = fileURLToPath(new URL('./setup-child.ts', import.meta.url));

const TSX = import.meta.resolve('tsx');
// Each test waits on its child's exit, not on a clock: this bound only catches a child that hangs, and is wide
// because on a loaded machine a child took more than the default 20 s to load the OTel SDK under tsx.
const CHILD_RUN = 90_000;
let lastStderr = '';

function runChild(env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const { TOOLSCOPE_HASH_KEY: _inherited, ...parent } = process.env;
    // tsx as an in-process loader: one process a run, where the tsx command starts two.
    const p = spawn(process.execPath, ['--import', TSX, '--conditions=@toolscope/source', child], {
      env: { ...parent, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    lastStderr = '';
    p.stderr?.on('data', (d: Buffer) => {
      lastStderr += d.toString();
    });
    p.on('error', reject);
    p.on('close', resolve);
  });
}

describe('setupToolscope', { timeout: CHILD_RUN }, () => {
  // One run for both: the default export and the warning are the same program with the same environment.
  it('exports protobuf by default to OTEL_EXPORTER_OTLP_ENDPOINT, flushes on exit, and warns once on stderr when no hash key is set', async () => {
    received.length = 0;
    expect(await runChild({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toBe(0);
    expect(lastStderr.match(/TOOLSCOPE_NO_HASH_KEY/g)).toHaveLength(1);
    expect(lastStderr).toContain('input hashes will not match across processes');
    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]?.headers['content-type']).toBe('application/x-protobuf');
    const bytes = Buffer.concat(traces.map((t) => t.body)).toString('latin1');
    expect(bytes).toContain('execute_tool get_order');
    expect(bytes).toContain('setup-child');
    expect(received.every((r) => r.path === '/v1/traces')).toBe(true);
  });

  it('switches to JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json', async () => {
    received.length = 0;
    expect(
      await runChild({
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toBe(0);
    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces[0]?.headers['content-type']).toBe('application/json');
    type OtlpJson = {
      resourceSpans: {
        scopeSpans: {
          spans: { name: string; attributes: { key: string; value: { stringValue?: string } }[] }[];
        }[];
      }[];
    };
    const spans = traces.flatMap((t) =>
      (JSON.parse(t.body.toString()) as OtlpJson).resourceSpans.flatMap((r) =>
        r.scopeSpans.flatMap((s) => s.spans),
      ),
    );
    // The tool's contract goes once per process, beside its calls (contract-report.ts).
    expect(spans.map((s) => s.name)).toEqual([
      'tool_contract get_order',
      'execute_tool get_order',
      'execute_tool get_order',
    ]);
    const codes = spans
      .slice(1)
      .map((s) => s.attributes.find((a) => a.key === 'toolscope.error.code')?.value.stringValue);
    expect(codes).toEqual([undefined, 'INVALID_INPUT']);
  });

  it('does not warn with a hash key', async () => {
    expect(
      await runChild({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, TOOLSCOPE_HASH_KEY: 'shared-key' }),
    ).toBe(0);
    expect(lastStderr).not.toContain('TOOLSCOPE_NO_HASH_KEY');
  });
});
