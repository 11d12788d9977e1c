// One logical call through the adapters, with the real SDK v2 packages in one process (decision 0046): a tool that
// asks for input once is one SERVER span and one CLIENT span in both eras (2026-07-28's two requests, the SDK's
// shim inside one 2025 request); a task polled to its end is one SERVER span (ext-tasks' traffic bypasses the client
// adapter); the parts a process sees of a call it cannot see whole carry the hashes that join them.
import {
  type Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createHasher } from '../../src/hashing.js';
import { instrumentMcpClient, instrumentMcpServer } from '../../src/index.js';
import { endParked } from '../../src/parked.js';
import * as sc from '../../src/semconv.js';
import { mcpOutputHash } from '../../src/shared-rules.js';
import { createTracing } from '../tracing.js';
import {
  ANSWER_MS,
  agentClient,
  envelope,
  logicalServer,
  POLL_MS,
  POLLS_TO_COMPLETE,
  rawRpc,
  taskSession,
} from './logical-tools.js';

const KEY = 'logical-call';
const hasher = createHasher(KEY);
const URL_ = 'http://in-process/mcp';

function setup() {
  const tracing = createTracing();
  const options = { tracerProvider: tracing.provider, hashKey: KEY };
  const factory = () => logicalServer((server) => instrumentMcpServer(server, options));
  const handler = createMcpHandler(factory);
  const fetch = (url: string | URL, init?: RequestInit) => handler.fetch(new Request(url, init));
  const spans = (tool: string, kind: SpanKind) =>
    tracing.spans().filter((s) => s.name === `tools/call ${tool}` && s.kind === kind);
  const polls = () => tracing.spans().filter((s) => s.name === 'tasks/get');
  return { tracing, options, factory, fetch, spans, polls };
}

/** A modern client of the in-process `createMcpHandler`, traced by `instrumentMcpClient`. */
async function modernClient(s: ReturnType<typeof setup>, traced = true): Promise<Client> {
  const bare = agentClient('modern-agent', true);
  const client = traced ? instrumentMcpClient(bare, s.options) : bare;
  await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: s.fetch }));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return client;
}

const attr = (span: ReadableSpan | undefined, key: string) => span?.attributes[key];

afterEach(() => {
  endParked();
});

describe('a tool that asks for input once', () => {
  it('2026-07-28, two requests under two JSON-RPC ids: one SERVER span and one CLIENT span, two legs', async () => {
    const s = setup();
    const client = await modernClient(s);
    const result = await client.callTool({ name: 'book', arguments: { day: 'friday' } });
    expect(result.content).toEqual([{ type: 'text', text: 'booked friday at 19:30' }]);
    const [server] = s.spans('book', SpanKind.SERVER);
    const [caller] = s.spans('book', SpanKind.CLIENT);
    expect(s.spans('book', SpanKind.SERVER)).toHaveLength(1);
    expect(s.spans('book', SpanKind.CLIENT)).toHaveLength(1);
    for (const span of [server, caller]) {
      expect(attr(span, sc.ATTR_TOOLSCOPE_CALL_LEGS)).toBe(2);
      expect(attr(span, sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS)).toBeGreaterThanOrEqual(
        ANSWER_MS - 1,
      );
      // The final answer's outcome and output, not the first leg's `input_required`.
      expect(attr(span, sc.ATTR_ERROR_TYPE)).toBeUndefined();
      expect(attr(span, sc.ATTR_TOOLSCOPE_OUTPUT_HASH)).toBe(mcpOutputHash(result, hasher));
      expect(attr(span, sc.ATTR_TOOLSCOPE_CALL_AWAITS)).toBeUndefined();
    }
    // From the first request (its JSON-RPC id) to the final result, in the client's trace.
    expect(server?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(attr(server, sc.ATTR_JSONRPC_REQUEST_ID)).toBe(attr(caller, sc.ATTR_JSONRPC_REQUEST_ID));
    await client.close();
  });

  it('on a 2025 connection the SDK shim asks inside one request: the same two spans, two legs', async () => {
    const s = setup();
    const server = s.factory();
    const client = instrumentMcpClient(agentClient('legacy-agent', false), s.options);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    const result = await client.callTool({ name: 'book', arguments: { day: 'friday' } });
    expect(result.content).toEqual([{ type: 'text', text: 'booked friday at 19:30' }]);
    for (const kind of [SpanKind.SERVER, SpanKind.CLIENT]) {
      const spans = s.spans('book', kind);
      expect(spans).toHaveLength(1);
      expect(attr(spans[0], sc.ATTR_MCP_PROTOCOL_VERSION)).not.toBe('2026-07-28');
      expect(attr(spans[0], sc.ATTR_TOOLSCOPE_CALL_LEGS)).toBe(2);
      expect(attr(spans[0], sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS)).toBeGreaterThanOrEqual(
        ANSWER_MS - 1,
      );
    }
    await client.close();
  });
});

describe('a task polled to its end', () => {
  it('is one SERVER span from the call to the last poll, with its polls, interval and status', async () => {
    const s = setup();
    const client = await modernClient(s);
    const session = taskSession(client, URL_, s.fetch);
    const execution = await session.callTool('report', { month: 'may', outcome: 'completed' });
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: 'completed' });
    await session.close();
    const spans = s.spans('report', SpanKind.SERVER);
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span?.attributes).toMatchObject({
      [sc.ATTR_TOOLSCOPE_TASK_POLLS]: POLLS_TO_COMPLETE,
      [sc.ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS]: POLL_MS,
      [sc.ATTR_TOOLSCOPE_TASK_STATUS]: 'completed',
      [sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS]: 1,
    });
    expect(attr(span, sc.ATTR_TOOLSCOPE_TASK_ID_HASH)).toMatch(/^[0-9a-f]{16}$/);
    expect(attr(span, sc.ATTR_ERROR_TYPE)).toBeUndefined();
    // Polled at the server's interval: the call lasted at least the polls' wait.
    const ms = (span?.duration[0] ?? 0) * 1000 + (span?.duration[1] ?? 0) / 1e6;
    expect(ms).toBeGreaterThanOrEqual(POLL_MS * (POLLS_TO_COMPLETE - 1));
    // ext-tasks sends the task's traffic through the host's rawDispatch: the client adapter sees none of it.
    expect(s.spans('report', SpanKind.CLIENT)).toHaveLength(0);
    expect(s.polls()).toHaveLength(0);
    await client.close();
  });

  it('ends with the task’s outcome when it fails or is cancelled', async () => {
    const s = setup();
    const client = await modernClient(s, false);
    const session = taskSession(client, URL_, s.fetch);
    for (const outcome of ['failed', 'cancelled'] as const) {
      const execution = await session.callTool('report', { month: 'june', outcome });
      await execution.settle();
    }
    await session.close();
    const [failed, cancelled] = s.spans('report', SpanKind.SERVER);
    expect(failed?.attributes).toMatchObject({
      [sc.ATTR_TOOLSCOPE_TASK_STATUS]: 'failed',
      [sc.ATTR_ERROR_TYPE]: '-32603',
      [sc.ATTR_TOOLSCOPE_ERROR_CODE]: 'FAILED',
    });
    expect(cancelled?.attributes).toMatchObject({
      [sc.ATTR_TOOLSCOPE_TASK_STATUS]: 'cancelled',
      [sc.ATTR_ERROR_TYPE]: 'cancelled',
    });
    for (const span of [failed, cancelled]) expect(span?.status.code).toBe(2);
    await client.close();
  });
});

describe('the parts of a call one process cannot see whole', () => {
  it('a leg that never came, and a leg whose first never came here, share the hash that joins them', async () => {
    const s = setup();
    const rpc = rawRpc(URL_, s.fetch);
    const params = { name: 'book', arguments: { day: 'monday' }, _meta: envelope('raw-agent') };
    const first = await rpc({ method: 'tools/call', params });
    expect(first).toMatchObject({ kind: 'result', result: { resultType: 'input_required' } });
    // The client took its answer elsewhere: the process stops, and the call ends as a part waiting for its leg.
    endParked();
    const requestState = first.kind === 'result' ? first.result.requestState : undefined;
    expect(requestState).toBe('book:monday');
    // Its second leg arrives at a process that never saw the first (here: after the first was let go).
    const inputResponses = { time: { action: 'accept', content: { time: '12:00' } } };
    const second = await rpc({
      method: 'tools/call',
      params: { ...params, requestState, inputResponses },
    });
    expect(second).toMatchObject({ kind: 'result' });
    const [waiting, resumed] = s.spans('book', SpanKind.SERVER);
    const stateHash = hasher('book:monday');
    expect(attr(waiting, sc.ATTR_TOOLSCOPE_CALL_AWAITS)).toBe(stateHash);
    expect(attr(waiting, sc.ATTR_TOOLSCOPE_CALL_RESUMES)).toBeUndefined();
    expect(attr(resumed, sc.ATTR_TOOLSCOPE_CALL_RESUMES)).toBe(stateHash);
    expect(attr(resumed, sc.ATTR_TOOLSCOPE_CALL_AWAITS)).toBeUndefined();
    // Same tool and input: the collector's other keys for the join.
    expect(attr(waiting, sc.ATTR_TOOLSCOPE_INPUT_HASH)).toBe(
      attr(resumed, sc.ATTR_TOOLSCOPE_INPUT_HASH),
    );
    expect(attr(resumed, sc.ATTR_TOOLSCOPE_OUTPUT_BYTES)).toBeGreaterThan(0);
  });

  it('a task whose creating call ended as a part: its polls are `tasks/get` parts with the task’s hash', async () => {
    const s = setup();
    const rpc = rawRpc(URL_, s.fetch);
    const created = await rpc({
      method: 'tools/call',
      params: {
        name: 'report',
        arguments: { month: 'july', outcome: 'completed' },
        _meta: envelope('raw'),
      },
    });
    const taskId = created.kind === 'result' ? created.result.taskId : undefined;
    expect(typeof taskId).toBe('string');
    endParked();
    for (let i = 0; i < POLLS_TO_COMPLETE; i++)
      await rpc({ method: 'tasks/get', params: { taskId, _meta: envelope('raw') } });
    const [creating] = s.spans('report', SpanKind.SERVER);
    const idHash = hasher(String(taskId));
    expect(creating?.attributes).toMatchObject({
      [sc.ATTR_TOOLSCOPE_TASK_ID_HASH]: idHash,
      [sc.ATTR_TOOLSCOPE_TASK_STATUS]: 'working',
      [sc.ATTR_TOOLSCOPE_TASK_POLLS]: 0,
    });
    const polls = s.polls();
    expect(polls).toHaveLength(POLLS_TO_COMPLETE);
    for (const poll of polls) expect(attr(poll, sc.ATTR_TOOLSCOPE_TASK_ID_HASH)).toBe(idHash);
    expect(polls.map((p) => attr(p, sc.ATTR_TOOLSCOPE_TASK_STATUS))).toEqual([
      ...Array.from({ length: POLLS_TO_COMPLETE - 1 }, () => 'working'),
      'completed',
    ]);
    expect(attr(polls.at(-1), sc.ATTR_TOOLSCOPE_OUTPUT_HASH)).toMatch(/^[0-9a-f]{16}$/);
  });
});
