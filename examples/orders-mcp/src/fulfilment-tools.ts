// The fulfilment deployment's tools, on the SDK v2 line and the 2026-07-28 revision (docs/mcp.md, "One logical
// call"): order_export answers as a task (the Tasks extension) that the client polls with `tasks/get` until the
// export is written, and order_cancel asks the user to confirm once (an elicitation round: the client answers and
// sends the call again). Each is one logical call however many requests it takes. SDK v2 has no task runtime
// for servers, so the task store and the `tasks/get` handler are written here.
import { acceptedContent, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { fetchOrderHistory } from './upstream.js';

const TASKS = 'io.modelcontextprotocol/tasks';
/** How often the server asks to be polled for an export. */
export const EXPORT_POLL_INTERVAL_MS = 1_000;
/** How long an export takes to write: several of the intervals above, so a patient client polls a few times. */
export const EXPORT_MS = 2_500;
/** How long the server keeps a finished export's answer. */
const EXPORT_TTL_MS = 60_000;

type Export = { createdAt: string; done: Promise<string>; file: string | undefined };
// Per process, not per server instance: createMcpHandler makes an instance per request.
const exports = new Map<string, Export>();
let exportCount = 0;

function taskBody(taskId: string, status: string, task: Export) {
  return {
    taskId,
    status,
    createdAt: task.createdAt,
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: EXPORT_TTL_MS,
    pollIntervalMs: EXPORT_POLL_INTERVAL_MS,
  };
}

/** Writes a customer's order history as CSV, in the background: the task's work. */
async function writeExport(customerId: string): Promise<string> {
  const [orders] = await Promise.all([
    fetchOrderHistory(customerId),
    new Promise((resolve) => setTimeout(resolve, EXPORT_MS)),
  ]);
  return `exports/${customerId}-${orders.length}-orders.csv`;
}

const confirmSchema = z.object({ confirm: z.boolean() });

/** The fulfilment server, given to `instrument` first (instrumentMcpServer in the example's process). */
export function fulfilmentServer(instrument: (server: McpServer) => McpServer): McpServer {
  const server = instrument(
    new McpServer(
      { name: 'orders-fulfilment', version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { [TASKS]: {} } } },
    ),
  );
  server.registerTool(
    'order_export',
    {
      description: `Exports a customer's order history as a CSV file. Answers with a task: poll tasks/get every pollIntervalMs until it completes.`,
      inputSchema: z.object({ customerId: z.string().min(1) }),
    },
    async ({ customerId }) => {
      const taskId = `export-${process.pid}-${++exportCount}`;
      const task: Export = {
        createdAt: new Date().toISOString(),
        done: writeExport(customerId),
        file: undefined,
      };
      void task.done.then((file) => {
        task.file = file;
      });
      exports.set(taskId, task);
      // A task's creating answer (2026-07-28, flat): the SDK's result types do not name it yet.
      return { resultType: 'task', ...taskBody(taskId, 'working', task) } as never;
    },
  );
  server.server.setRequestHandler(
    'tasks/get',
    { params: z.looseObject({ taskId: z.string() }) },
    async ({ taskId }) => {
      const task = exports.get(taskId);
      if (!task) throw new Error(`no task ${taskId}`);
      if (task.file === undefined) return taskBody(taskId, 'working', task) as never;
      const result = {
        resultType: 'complete',
        content: [{ type: 'text', text: `wrote ${task.file}` }],
      };
      return { ...taskBody(taskId, 'completed', task), result } as never;
    },
  );
  server.registerTool(
    'order_cancel',
    {
      description: 'Cancels an order. Asks the user to confirm first.',
      inputSchema: z.object({ orderId: z.string().min(1) }),
    },
    async ({ orderId }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmSchema);
      if (!answer)
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Cancel ${orderId}? This cannot be undone.`,
              requestedSchema: confirmSchema,
            }),
          },
          requestState: `cancel:${orderId}`,
        });
      const text = answer.confirm ? `cancelled ${orderId}` : `kept ${orderId}`;
      return { content: [{ type: 'text', text }] };
    },
  );
  return server;
}
