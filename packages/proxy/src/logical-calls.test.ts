// The proxy's pairing of one logical call (decision 0046), fed the JSON-RPC lines of the 2026-07-28 and 2025 wire
// (docs/mcp.md): legs of one call on one connection (stdio) and on two (HTTP without sessions), a 2025 elicitation
// round inside one request, a task's polls to its end, and the parts of calls the proxy cannot see whole. The real
// SDK's traffic through the proxy process is test/e2e/logical-calls.test.ts.
import { createHasher, createRedactor } from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import { describe, expect, it } from 'vitest';
import type { CallContext } from './call-span.js';
import { createLogger } from './log.js';
import { LogicalCalls } from './logical-calls.js';
import { McpObserver } from './observer.js';
import type { ProxySpan } from './otlp/proxy-span.js';
import { ProxyTracerProvider } from './otlp/proxy-tracer.js';
import { readSdkEnv } from './otlp/sdk-env.js';
import { ToolTable } from './tool-table.js';

const hasher = createHasher('logical-calls-test');
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function proxyRun() {
  const ended: ProxySpan[] = [];
  const provider = new ProxyTracerProvider({ onEnd: (span) => ended.push(span) }, readSdkEnv({}));
  const calls = new LogicalCalls(hasher);
  const tools = new ToolTable();
  /** An observer of one connection or session; all of one run share `calls`. */
  const observe = (transport: CallContext['transport'] = 'pipe') =>
    new McpObserver({
      telemetry: {
        server: { name: 'bookings', version: '2.0.0' },
        provider: () => provider,
        tracer: () => provider.getTracer('@toolscope/proxy', 'test'),
      },
      tools,
      calls,
      log: createLogger('error', () => {}),
      enforceOutput: false,
      context: {
        transport,
        protocolVersion: '2026-07-28',
        sessionId: undefined,
        clientName: undefined,
        clientVersion: undefined,
        conversationId: 'conv',
        hasher,
        redactor: createRedactor({}, undefined),
      },
    });
  const spans = (name: string) => ended.filter((s) => s.name === name);
  return { observe, calls, spans };
}

const line = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`);
const meta = { traceparent: TRACEPARENT };

/** A client line through the observer: what it forwards (the proxy's traceparent in it). */
function send(o: McpObserver, message: unknown): string {
  const out = o.fromClient(line(message)).toString();
  o.afterForward();
  return out;
}
const answer = (o: McpObserver, message: unknown) => o.fromUpstream(line(message));
const traceparentOf = (forwarded: string) =>
  (JSON.parse(forwarded) as { params: { _meta: { traceparent: string } } }).params._meta
    .traceparent;

const book = (id: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'book', arguments: { day: 'friday' }, _meta: meta, ...extra },
});
const asking = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: {
    resultType: 'input_required',
    inputRequests: { time: { method: 'elicitation/create', params: { message: 'When?' } } },
    requestState: 'book:friday',
  },
});
const secondLeg = (id: number) =>
  book(id, {
    requestState: 'book:friday',
    inputResponses: { time: { action: 'accept', content: { time: '19:30' } } },
  });
const booked = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: 'booked friday at 19:30' }] },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a multi round-trip call through the proxy', () => {
  it('on one connection: one span over both legs, the second leg forwarded under the first leg’s span', async () => {
    const run = proxyRun();
    const o = run.observe();
    const first = send(o, book(1));
    answer(o, asking(1));
    expect(run.spans('tools/call book')).toHaveLength(0);
    await sleep(20);
    const second = send(o, secondLeg(2));
    answer(o, booked(2));
    const [span] = run.spans('tools/call book');
    expect(run.spans('tools/call book')).toHaveLength(1);
    expect(traceparentOf(second)).toBe(traceparentOf(first));
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_TOOLSCOPE_CALL_LEGS]: 2,
      [sc.ATTR_JSONRPC_REQUEST_ID]: '1',
    });
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS]).toBeGreaterThanOrEqual(15);
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_OUTPUT_HASH]).toMatch(/^[0-9a-f]{16}$/);
    expect(o.counts.calls).toBe(1);
    expect(run.calls.size).toBe(0);
  });

  it('over HTTP without sessions, its legs on two connections: still one span', () => {
    const run = proxyRun();
    const a = run.observe('tcp');
    const b = run.observe('tcp');
    send(a, book(1));
    answer(a, asking(1));
    send(b, secondLeg(1));
    answer(b, booked(1));
    expect(run.spans('tools/call book')).toHaveLength(1);
    expect(run.spans('tools/call book')[0]?.attributes[sc.ATTR_TOOLSCOPE_CALL_LEGS]).toBe(2);
  });

  it('in a 2025 session the upstream asks inside the request: one span, the round counted', async () => {
    const run = proxyRun();
    const o = run.observe();
    send(o, book(7));
    answer(o, {
      jsonrpc: '2.0',
      id: 0,
      method: 'elicitation/create',
      params: { message: 'When?' },
    });
    await sleep(20);
    send(o, { jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { time: '19:30' } } });
    answer(o, booked(7));
    const [span] = run.spans('tools/call book');
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_CALL_LEGS]).toBe(2);
    expect(span?.attributes[sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS]).toBeGreaterThanOrEqual(15);
  });

  it('parts: a call whose next leg never came awaits the hash the leg that came elsewhere resumes', () => {
    const run = proxyRun();
    const o = run.observe();
    send(o, book(1));
    answer(o, asking(1));
    // The proxy stops (or the leg went to another proxy): the call ends as a part, waiting.
    run.calls.endAll();
    const elsewhere = proxyRun();
    const other = elsewhere.observe();
    send(other, secondLeg(2));
    answer(other, booked(2));
    const [waiting] = run.spans('tools/call book');
    const [resumed] = elsewhere.spans('tools/call book');
    const stateHash = hasher('book:friday');
    expect(waiting?.attributes[sc.ATTR_TOOLSCOPE_CALL_AWAITS]).toBe(stateHash);
    expect(waiting?.status.code).toBe(0);
    expect(resumed?.attributes[sc.ATTR_TOOLSCOPE_CALL_RESUMES]).toBe(stateHash);
    expect(resumed?.attributes[sc.ATTR_TOOLSCOPE_INPUT_HASH]).toBe(
      waiting?.attributes[sc.ATTR_TOOLSCOPE_INPUT_HASH],
    );
  });
});

describe('a task through the proxy', () => {
  const created = (id: number, taskId: string) => ({
    jsonrpc: '2.0',
    id,
    result: { resultType: 'task', taskId, status: 'working', ttlMs: 60_000, pollIntervalMs: 25 },
  });
  const poll = (id: number, taskId: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tasks/get',
    params: { taskId, _meta: meta },
  });
  const polled = (id: number, status: string) => ({
    jsonrpc: '2.0',
    id,
    result: {
      taskId: 't-1',
      status,
      pollIntervalMs: 25,
      ...(status === 'completed' ? { result: { content: [{ type: 'text', text: 'May' }] } } : {}),
    },
  });
  const report = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'report', arguments: { month: 'may' }, _meta: meta },
  });

  it('is one span from the call to its last poll, polled on another connection', () => {
    const run = proxyRun();
    const a = run.observe('tcp');
    const b = run.observe('tcp');
    send(a, report(1));
    answer(a, created(1, 't-1'));
    for (const [id, status] of [
      [2, 'working'],
      [3, 'working'],
      [4, 'completed'],
    ] as const) {
      send(b, poll(id, 't-1'));
      answer(b, polled(id, status));
    }
    const spans = run.spans('tools/call report');
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes).toMatchObject({
      [sc.ATTR_TOOLSCOPE_TASK_POLLS]: 3,
      [sc.ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS]: 25,
      [sc.ATTR_TOOLSCOPE_TASK_STATUS]: 'completed',
      [sc.ATTR_TOOLSCOPE_TASK_ID_HASH]: hasher('t-1'),
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
    });
    expect(run.spans('tasks/get')).toHaveLength(0);
  });

  it('polls of a task the proxy never saw created are `tasks/get` parts with the task’s hash', () => {
    const run = proxyRun();
    const o = run.observe('tcp');
    send(o, poll(1, 't-1'));
    answer(o, polled(1, 'working'));
    send(o, poll(2, 't-1'));
    answer(o, polled(2, 'completed'));
    const parts = run.spans('tasks/get');
    expect(parts.map((p) => p.attributes[sc.ATTR_TOOLSCOPE_TASK_STATUS])).toEqual([
      'working',
      'completed',
    ]);
    for (const part of parts) {
      expect(part.attributes[sc.ATTR_TOOLSCOPE_TASK_ID_HASH]).toBe(hasher('t-1'));
      expect(part.attributes[sc.ATTR_TOOLSCOPE_PROXY]).toBe(true);
      expect(part.attributes[sc.ATTR_GEN_AI_TOOL_NAME]).toBeUndefined();
    }
  });
});
