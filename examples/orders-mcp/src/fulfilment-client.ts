// The scripted agent's side of the fulfilment deployment (fulfilment-tools.ts), on the SDK v2 line and the
// 2026-07-28 revision: an instrumented client whose user confirms order_cancel's question (the SDK sends the call
// again with the answer: one call, two legs), and two ways to wait for order_export's task. A patient agent uses
// @modelcontextprotocol/ext-tasks, which polls `tasks/get` at the server's pollIntervalMs; an impatient one polls
// in a tight loop. ext-tasks sends task traffic through a JSON-RPC dispatch the host supplies, not through the
// client (docs/mcp.md, "One logical call"), so the server's spans are what record those calls.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { context, propagation } from '@opentelemetry/api';
import { instrumentMcpClient } from '@toolscope/instrument';
import {
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  MCP_META_CONVERSATION_ID,
  MCP_META_PROTOCOL_VERSION,
} from '@toolscope/instrument/semconv';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_INFO = { name: 'scripted-agent', version: '1.0.0' };
/** How often the impatient agent polls a task: it never reads pollIntervalMs. */
export const EAGER_POLL_MS = 10;

/** How the agent waits for a task: at the interval the server asks for, or as fast as it can. */
export type TaskWait = 'at-interval' | 'eagerly';

type RawAnswer =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string } };

export type Fulfilment = {
  /** Calls a tool of the fulfilment deployment; a task is waited for as `wait` says. The outcome: `ok` or why not. */
  call(tool: string, args: Record<string, unknown>, wait?: TaskWait): Promise<string>;
  close(): Promise<void>;
};

/**
 * A JSON-RPC dispatch over Streamable HTTP as a host's request coordinator sends it: the 2026-07-28 envelope, the
 * active trace context and the conversation in `_meta`, and the `Mcp-Method`/`Mcp-Name` headers.
 */
function rawRpc(url: string, conversation: { id: string }) {
  let id = 0;
  return async (request: unknown): Promise<RawAnswer> => {
    const r = request as { method: string; params?: Record<string, unknown> };
    const meta: Record<string, unknown> = {
      [MCP_META_PROTOCOL_VERSION]: MODERN,
      [MCP_META_CLIENT_INFO]: CLIENT_INFO,
      [MCP_META_CLIENT_CAPABILITIES]: { extensions: { [TASKS]: {} } },
      ...(r.params?._meta as object),
      ...(conversation.id ? { [MCP_META_CONVERSATION_ID]: conversation.id } : {}),
    };
    propagation.inject(context.active(), meta);
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
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: `raw-${++id}`,
        ...r,
        params: { ...r.params, _meta: meta },
      }),
    });
    const text = await res.text();
    const data = text.split('\n').find((line) => line.startsWith('data:'));
    const json = JSON.parse(data ? data.slice(5) : text) as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string };
    };
    return json.error
      ? { kind: 'error', error: json.error }
      : { kind: 'result', result: json.result ?? {} };
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The impatient agent: creates the task, then polls it every EAGER_POLL_MS until it ends. */
async function pollEagerly(
  rpc: ReturnType<typeof rawRpc>,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const created = await rpc({ method: 'tools/call', params: { name: tool, arguments: args } });
  if (created.kind === 'error') return `error ${created.error.code}`;
  const taskId = created.result.taskId;
  if (typeof taskId !== 'string') return 'no task';
  for (;;) {
    await pause(EAGER_POLL_MS);
    const polled = await rpc({ method: 'tasks/get', params: { taskId } });
    if (polled.kind === 'error') return `error ${polled.error.code}`;
    const status = String(polled.result.status);
    if (TERMINAL.has(status)) return status === 'completed' ? 'ok' : status;
  }
}

/** Connects to the fulfilment deployment at `url`; `conversation` is the one the agent's calls belong to. */
export async function connectFulfilment(
  url: string,
  conversation: { id: string },
): Promise<Fulfilment> {
  const client = instrumentMcpClient(
    new Client(CLIENT_INFO, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: MODERN } },
    }),
    { conversationId: () => conversation.id || undefined },
  );
  // The user, asked to confirm a cancellation, says yes.
  client.setRequestHandler('elicitation/create', async () => ({
    action: 'accept',
    content: { confirm: true },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  // An agent reads the tools it may call first; the server reports their contracts as it lists them.
  await client.listTools();
  const rpc = rawRpc(url, conversation);
  const tasks = createTaskSessionFromClient(client, {
    endpointId: 'orders-fulfilment',
    rawDispatch: rpc,
    v2RequestFraming: {
      protocolVersion: MODERN,
      clientInfo: CLIENT_INFO,
      clientCapabilities: { extensions: { [TASKS]: {} } },
    },
    // Client 2.4's default tool-list refresh fails on this path ("Expected a JSON value").
    tools: { currentTool: () => undefined },
  } as Parameters<typeof createTaskSessionFromClient>[1]);
  return {
    async call(tool, args, wait) {
      if (wait === 'eagerly') return pollEagerly(rpc, tool, args);
      if (wait === 'at-interval') {
        // The scenes' arguments are JSON (scenarios.ts): what ext-tasks' signature asks for.
        const execution = await tasks.callTool(tool, args as Parameters<typeof tasks.callTool>[1]);
        const { outcome } = await execution.settle();
        return outcome.status === 'completed' ? 'ok' : outcome.status;
      }
      const result = await client.callTool({ name: tool, arguments: args });
      return result.isError ? 'ERROR' : 'ok';
    },
    async close() {
      await tasks.close();
      await client.close();
    },
  };
}
