// Scenario tests of every detector, each built from spans sent through the real ingest path (OTLP/JSON over
// HTTP, and the retry-loop story through a real defineTool and the OTLP protobuf exporter); the quiet cases
// (corrected retry, polling, retries within the cap, a clean rollout) must produce no flag.
import { defineTool } from '@toolscope/instrument';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FlagsResponse } from '../src/detectors/flag.js';
import {
  exportingProvider,
  getJson,
  otlpToolCalls,
  postJson,
  startTestCollector,
  type TestCollector,
  type ToolCallSpec,
} from './harness.js';

let c: TestCollector;
beforeEach(async () => {
  c = await startTestCollector();
});
afterEach(() => c.stop());

async function send(calls: ToolCallSpec[]) {
  expect((await postJson(c.url, otlpToolCalls(calls))).status).toBe(200);
}

async function flags(query = '') {
  const res = await getJson<FlagsResponse>(`${c.url}/api/flags${query}`);
  expect(res.status).toBe(200);
  return res.body.flags;
}

const now = Date.now();
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const kinds = (fs: FlagsResponse['flags']) => fs.map((f) => f.kind).sort();

describe('retry-loop detectors', () => {
  it('flags the retry-loop story: { customerId: 42 } three times in one trace', async () => {
    const { provider } = exportingProvider(c.url, 'proto');
    const getOrder = defineTool({
      name: 'get_order',
      version: '1',
      effect: 'read',
      description: 'Orders of one customer',
      input: z.object({ customerId: z.string() }).strict(),
      output: z.object({ ok: z.boolean() }),
      tracerProvider: provider,
      hashKey: 'k',
      execute: () => ({ ok: true }),
    });
    const root = provider.getTracer('agent').startSpan('agent.turn');
    const { context, trace } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    await context.with(trace.setSpan(context.active(), root), async () => {
      for (let i = 0; i < 3; i++) await getOrder.call({ customerId: 42 });
    });
    root.end();
    await provider.forceFlush();
    await provider.shutdown();
    context.disable();
    const found = await flags();
    expect(kinds(found)).toEqual(['identical_retry', 'unrepaired_invalid_input']);
    const traceId = root.spanContext().traceId;
    for (const f of found) {
      expect(f).toMatchObject({ tool: 'get_order', traceId, severity: 'error' });
      expect(f.evidence.traceIds).toEqual([traceId]);
    }
    expect(found.find((f) => f.kind === 'identical_retry')?.count).toBe(3);
  });

  it('stays quiet for a corrected retry, polling with changing inputs, and a read retried within its cap', async () => {
    await send([
      { trace: 1, input: 'h42', code: 'INVALID_INPUT', atMs: now - 5000 },
      { trace: 1, input: 'hcus1', atMs: now - 4000 },
      ...[1, 2, 3, 4, 5].map((i) => ({
        trace: 2,
        tool: 'job_status',
        input: `poll${i}`,
        atMs: now - 3000 + i,
      })),
      { trace: 3, input: 'h7', code: 'RETRYABLE', retryable: true, atMs: now - 2000 },
      { trace: 3, input: 'h7', code: 'RETRYABLE', retryable: true, atMs: now - 1900 },
      { trace: 3, input: 'h7', atMs: now - 1800 },
    ]);
    expect(await flags()).toEqual([]);
  });

  it('flags a call repeated after a failure that was not retryable', async () => {
    await send([
      {
        trace: 4,
        tool: 'order_intent',
        input: 'hx',
        code: 'REJECTED',
        retryable: false,
        atMs: now - 2000,
      },
      {
        trace: 4,
        tool: 'order_intent',
        input: 'hx',
        code: 'REJECTED',
        retryable: false,
        atMs: now - 1000,
      },
    ]);
    const [flag, ...rest] = await flags();
    expect(rest).toEqual([]);
    expect(flag).toMatchObject({
      kind: 'retry_after_non_retryable',
      tool: 'order_intent',
      count: 2,
      traceId: hex(4, 32),
    });
    expect(flag?.summary).toContain('REJECTED');
  });

  it('flags a write retried without an idempotency key after a possible partial effect, not one with a key', async () => {
    await send([
      {
        trace: 5,
        tool: 'order_intent',
        effect: 'write',
        input: 'w1',
        code: 'RETRYABLE',
        retryable: false,
        partialEffect: true,
        atMs: now - 3000,
      },
      { trace: 5, tool: 'order_intent', effect: 'write', input: 'w1', atMs: now - 2000 },
      {
        trace: 6,
        tool: 'order_intent',
        effect: 'write',
        input: 'w2',
        code: 'RETRYABLE',
        retryable: true,
        partialEffect: true,
        idempotencyKey: 'k1',
        atMs: now - 3000,
      },
      {
        trace: 6,
        tool: 'order_intent',
        effect: 'write',
        input: 'w2',
        idempotencyKey: 'k1',
        atMs: now - 2000,
      },
    ]);
    const found = await flags('?kind=unsafe_write_retry');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      kind: 'unsafe_write_retry',
      traceId: hex(5, 32),
      severity: 'error',
    });
  });

  it('flags loops that span the traces of one conversation', async () => {
    await send(
      [7, 8, 9].map((trace, i) => ({
        trace,
        input: 'same',
        code: 'FAILED',
        retryable: false,
        conversation: 'conv-1',
        atMs: now - 3000 + i * 100,
      })),
    );
    const found = await flags('?kind=identical_retry');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ conversationId: 'conv-1', count: 3 });
    expect(found[0]?.traceId).toBeUndefined();
    expect(found[0]?.evidence.traceIds).toEqual([hex(7, 32), hex(8, 32), hex(9, 32)]);
  });
});

describe('schema-drift detectors', () => {
  const minute = 60_000;

  it('flags one version served with two contracts (silent schema change)', async () => {
    await send([
      { trace: 20, hash: '1111111111111111', input: 'a', atMs: now - 10 * minute },
      { trace: 21, hash: '2222222222222222', input: 'b', atMs: now - 2 * minute },
    ]);
    const found = await flags('?kind=silent_schema_change');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      tool: 'get_order',
      version: '1',
      count: 2,
      evidence: { schemaHashes: ['1111111111111111', '2222222222222222'] },
    });
  });

  it('flags versions live at the same time, and stays quiet for a clean rollout', async () => {
    const interleaved = Array.from({ length: 20 }, (_, i) => ({
      trace: 30 + i,
      tool: 'search',
      version: i % 2 ? '2' : '1',
      hash: i % 2 ? 'bbbbbbbbbbbbbbbb' : 'aaaaaaaaaaaaaaaa',
      input: `q${i}`,
      atMs: now - 40 * minute + i * 2 * minute,
    }));
    const rollout = Array.from({ length: 20 }, (_, i) => ({
      trace: 60 + i,
      tool: 'catalogue_list',
      version: i < 10 ? '1' : '2',
      hash: i < 10 ? 'cccccccccccccccc' : 'dddddddddddddddd',
      input: `c${i}`,
      atMs: now - 40 * minute + i * 2 * minute,
    }));
    await send([...interleaved, ...rollout]);
    const found = await flags('?kind=version_skew');
    expect(found.map((f) => f.tool)).toEqual(['search']);
    expect(found[0]?.evidence.versions).toEqual(['1', '2']);
  });

  it('flags clients still sending an old input shape after a version bump (input drift) with paths and shapes', async () => {
    const baseline = Array.from({ length: 30 }, (_, i) => ({
      trace: 100 + i,
      input: `ok${i}`,
      shape: 'customerId:string',
      atMs: now - 50 * minute + i * minute,
    }));
    const issues = [
      {
        path: 'customer.id',
        code: 'invalid_type',
        message: 'Invalid input: expected object, received undefined',
      },
    ];
    const recent = Array.from({ length: 10 }, (_, i) => ({
      trace: 200 + i,
      input: `old${i}`,
      shape: 'customerId:string',
      code: 'INVALID_INPUT',
      issues,
      atMs: now - 8 * minute + i * 30_000,
    }));
    await send([...baseline, ...recent]);
    const found = await flags('?kind=input_drift&since=60m');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      tool: 'get_order',
      count: 10,
      evidence: { paths: ['customer.id'], shapes: ['customerId:string'] },
    });
    expect(found[0]?.evidence.traceIds?.length).toBeGreaterThan(0);
  });

  it('flags an upstream that starts returning an unknown enum (output drift)', async () => {
    const baseline = Array.from({ length: 20 }, (_, i) => ({
      trace: 300 + i,
      input: `x${i}`,
      atMs: now - 50 * minute + i * minute,
    }));
    const issues = [
      {
        path: 'orders.0.status',
        code: 'invalid_value',
        message: 'Invalid option: expected one of "pending"|"paid"|"cancelled"',
      },
    ];
    const recent = Array.from({ length: 5 }, (_, i) => ({
      trace: 400 + i,
      input: `y${i}`,
      code: 'INVALID_OUTPUT',
      issues,
      atMs: now - 5 * minute + i * 10_000,
    }));
    await send([...baseline, ...recent]);
    const found = await flags('?kind=output_drift&since=60m');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      tool: 'get_order',
      count: 5,
      evidence: { paths: ['orders.0.status'] },
    });
    // First and last seen are when the first and the newest failing call started, to the millisecond (not
    // rounded to their minute, not the window's edges), and the flag links both.
    expect(found[0]?.firstSeen).toBe(new Date(now - 5 * minute).toISOString());
    expect(found[0]?.lastSeen).toBe(new Date(now - 5 * minute + 40_000).toISOString());
    expect(found[0]?.evidence.traceIds?.slice(0, 2)).toEqual([hex(400, 32), hex(404, 32)]);
    expect(found[0]?.evidence.spanIds).toHaveLength(found[0]?.evidence.traceIds?.length ?? -1);
  });

  // Behind the proxy an uninstrumented client's calls have no trace context: each is a trace of its own, and
  // the SDK's refusal carries no issue paths. Three identical refused calls are one agent repeating itself, as
  // are the calls of one conversation.
  const typo = (trace: number, i: number, extra: Partial<ToolCallSpec> = {}): ToolCallSpec => ({
    trace,
    tool: 'get-sum',
    input: 'h-typo',
    shape: 'a:string,b:number',
    code: 'INVALID_INPUT',
    atMs: now - 3 * minute + i * 1_000,
    ...extra,
  });

  it('takes one agent repeating bad input for a loop, not drift, and dates drift from its calls', async () => {
    await send([
      // One client behind the proxy: the same refused input three times, a trace per call.
      ...[0, 1, 2].map((i) => typo(500 + i, i, { tool: 'get-sum' })),
      // One conversation trying four inputs over four traces.
      ...[0, 1, 2, 3].map((i) =>
        typo(510 + i, i, { tool: 'get-diff', input: `h-try-${i}`, conversation: 'conv-one' }),
      ),
      // Three agents (traces without a conversation, each its own input), no issue paths recorded.
      ...[0, 1, 2].map((i) => typo(520 + i, i, { tool: 'get-prod', input: `h-agent-${i}` })),
    ]);
    const [found, ...rest] = await flags('?kind=input_drift&since=60m');
    expect(rest).toEqual([]);
    // Dated from its first and newest call (not from the start of the recent part), and linking them.
    expect(found).toMatchObject({
      tool: 'get-prod',
      count: 3,
      firstSeen: new Date(now - 3 * minute).toISOString(),
      lastSeen: new Date(now - 3 * minute + 2_000).toISOString(),
    });
    expect(found?.evidence.traceIds).toEqual([hex(520, 32), hex(522, 32), hex(521, 32)]);
    expect(found?.summary).toContain('from 3 agents');
    // Asked again over a longer window, it reads the same: its times come from its calls, not the request.
    const again = await flags('?kind=input_drift&since=90m');
    expect(again.map((f) => [f.firstSeen, f.lastSeen])).toEqual([
      [found?.firstSeen, found?.lastSeen],
    ]);
  });

  it('validates its parameters', async () => {
    const res = await getJson<{ error: { message: string } }>(`${c.url}/api/flags?kind=nope`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('kind:');
  });
});

describe('detector thresholds from the command line', () => {
  it('honours --identical-retry-min and --rollout-grace', async () => {
    const { runCli } = await import('../src/index.js');
    let stop: (() => void) | undefined;
    let url = '';
    let listening!: () => void;
    const started = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const running = runCli(
      [
        'serve',
        '--port',
        '0',
        '--grpc-port',
        '0',
        '--db',
        ':memory:',
        '--identical-retry-min',
        '4',
        '--rollout-grace',
        '10s',
      ],
      {
        out: (t) => {
          const m = /listening on (\S+)/.exec(t);
          if (m?.[1]) {
            url = m[1];
            listening();
          }
        },
        err: () => {},
        env: {},
        onSignal: (signal, handler) => {
          if (signal === 'SIGTERM') stop = handler;
        },
      },
    );
    await started;
    const base = Date.now() - 10 * 60_000;
    // Three identical failing calls: below a minimum of 4, so no identical_retry (the repair flag still fires).
    const loop = [0, 1, 2].map((i) => ({
      trace: 900,
      input: 'same',
      code: 'RETRYABLE',
      retryable: false,
      atMs: base + i * 1000,
    }));
    // Two versions interleaved for one minute: skew with a 10 s grace, a rollout with the default 5 min.
    const skew = Array.from({ length: 6 }, (_, i) => ({
      trace: 910 + i,
      tool: 'search',
      version: i % 2 ? '2' : '1',
      hash: i % 2 ? 'b' : 'a',
      input: `s${i}`,
      atMs: base + i * 12_000,
    }));
    expect((await postJson(url, otlpToolCalls([...loop, ...skew]))).status).toBe(200);
    const res = await getJson<FlagsResponse>(`${url}/api/flags`);
    const found = kinds(res.body.flags);
    expect(found).toContain('version_skew');
    expect(found).toContain('retry_after_non_retryable');
    expect(found).not.toContain('identical_retry');
    stop?.();
    expect(await running).toBe(0);
  });

  it('refuses a bad --rollout-grace', async () => {
    const { runCli } = await import('../src/index.js');
    let err = '';
    const code = await runCli(['serve', '--rollout-grace', 'soon'], {
      out: () => {},
      err: (t) => {
        err += t;
      },
      env: {},
      onSignal: () => {},
    });
    expect(code).toBe(2);
    expect(err).toContain('--rollout-grace: expected a duration');
  });
});
