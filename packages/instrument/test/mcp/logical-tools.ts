// The fixture of the logical-call tests: an SDK v2 server with a tool that asks for input once (`book`, an
// elicitation round, multi round-trip in 2026-07-28 and the SDK's shim on a 2025 connection) and a tool that
// answers with a task polled to its end (`report`, written as docs/MCP-2026 facts say: SDK v2 has no task runtime
// for servers), and the agent's side: a client that answers the elicitation, and an ext-tasks session whose task
// traffic goes through a `rawDispatch` of the host's (JSON-RPC over HTTP), not through `client.request`.
import { Client } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { acceptedContent, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { context, defaultTextMapSetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { z } from 'zod';

export const MODERN = '2026-07-28';
/** How long the agent's user takes to answer the elicitation: the call's input wait is at least this. */
export const ANSWER_MS = 40;
/** The task server's poll interval, and how many polls a report takes to complete. */
export const POLL_MS = 25;
// More polls than the collector's polling threshold (5): were each poll read as a call, it would be flagged.
export const POLLS_TO_COMPLETE = 6;

const timeSchema = z.object({ time: z.string() });
const TASKS = 'io.modelcontextprotocol/tasks';

type Task = { polls: number; outcome: 'completed' | 'failed' | 'cancelled'; month: string };
// Per process, not per server instance: createMcpHandler makes an instance per request.
const tasks = new Map<string, Task>();
let taskCount = 0;

function taskBody(taskId: string, status: string) {
  const now = new Date().toISOString();
  return {
    taskId,
    status,
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: POLL_MS,
  };
}

/** The server, given to `instrument` first (instrumentMcpServer, or nothing for an uninstrumented one). */
export function logicalServer(instrument: (server: McpServer) => McpServer = (s) => s): McpServer {
  const server = instrument(
    new McpServer(
      { name: 'bookings', version: '2.0.0' },
      { capabilities: { tools: {}, extensions: { [TASKS]: {} } } },
    ),
  );
  server.registerTool(
    'book',
    { description: 'Books a table; asks for the time', inputSchema: z.object({ day: z.string() }) },
    async ({ day }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'time', timeSchema);
      if (!answer)
        return inputRequired({
          inputRequests: {
            time: inputRequired.elicit({ message: `When on ${day}?`, requestedSchema: timeSchema }),
          },
          requestState: `book:${day}`,
        });
      return { content: [{ type: 'text', text: `booked ${day} at ${answer.time}` }] };
    },
  );
  // A plain tool, for a loop the collector must flag beside the calls it must not.
  server.registerTool(
    'look',
    { description: 'Free tables on a day', inputSchema: z.object({ day: z.string() }) },
    async ({ day }) => ({ content: [{ type: 'text', text: `no free table on ${day}` }] }),
  );
  server.registerTool(
    'report',
    {
      description: 'A monthly report, made as a task',
      inputSchema: z.object({
        month: z.string(),
        outcome: z.enum(['completed', 'failed', 'cancelled']),
      }),
    },
    async ({ month, outcome }) => {
      const taskId = `task-${process.pid}-${++taskCount}`;
      tasks.set(taskId, { polls: 0, outcome, month });
      // A task's creating answer (2026-07-28, flat): the SDK's result types do not name it yet.
      return { resultType: 'task', ...taskBody(taskId, 'working') } as never;
    },
  );
  server.server.setRequestHandler(
    'tasks/get',
    { params: z.looseObject({ taskId: z.string() }) },
    async ({ taskId }) => {
      const task = tasks.get(taskId);
      if (!task) throw new Error(`no task ${taskId}`);
      task.polls++;
      const body = taskBody(taskId, 'working');
      if (task.polls < POLLS_TO_COMPLETE) return body as never;
      if (task.outcome === 'failed')
        return {
          ...body,
          status: 'failed',
          error: { code: -32603, message: 'report failed' },
        } as never;
      if (task.outcome === 'cancelled') return { ...body, status: 'cancelled' } as never;
      const text = `report for ${task.month}`;
      return {
        ...body,
        status: 'completed',
        result: { resultType: 'complete', content: [{ type: 'text', text }] },
      } as never;
    },
  );
  return server;
}

/** An agent's SDK v2 client that answers the `time` elicitation after `ANSWER_MS`. */
export function agentClient(name: string, modern: boolean): Client {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async () => {
    await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
    return { action: 'accept', content: { time: '19:30' } };
  });
  return client;
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;
export type RawAnswer =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string } };

const w3c = new W3CTraceContextPropagator();

/**
 * A raw JSON-RPC dispatch to a 2026-07-28 server at `url` (as a host's request coordinator sends ext-tasks'
 * traffic): the envelope's headers, the active trace context in `_meta` as an OTel host would put it.
 */
export function rawRpc(url: string, fetch: Fetch = globalThis.fetch) {
  let id = 0;
  return async (request: unknown): Promise<RawAnswer> => {
    const r = request as { method: string; params?: Record<string, unknown> };
    const meta: Record<string, unknown> = { ...(r.params?._meta as object) };
    w3c.inject(context.active(), meta, defaultTextMapSetter);
    const body = { jsonrpc: '2.0', id: `raw-${++id}`, ...r, params: { ...r.params, _meta: meta } };
    const name = r.params?.name ?? r.params?.taskId;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': r.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const data = text.split('\n').find((line) => line.startsWith('data:'));
    const json = JSON.parse(data ? data.slice(5) : text);
    return json.error
      ? { kind: 'error', error: json.error }
      : { kind: 'result', result: json.result };
  };
}

/** The 2026-07-28 `_meta` envelope a raw request carries. */
export const envelope = (client: string) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    extensions: { [TASKS]: {} },
  },
});

/** An ext-tasks session on `client` whose 2026-07-28 task traffic goes to `url` through `rawRpc`. */
export function taskSession(client: Client, url: string, fetch: Fetch = globalThis.fetch) {
  const rawDispatch = rawRpc(url, fetch);
  return createTaskSessionFromClient(client, {
    endpointId: 'bookings',
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: MODERN,
      clientInfo: { name: 'task-agent', version: '1.0.0' },
      clientCapabilities: {},
    },
    // Client 2.4's default tool-list refresh fails on this path ("Expected a JSON value").
    tools: { currentTool: () => undefined },
  } as Parameters<typeof createTaskSessionFromClient>[1]);
}
