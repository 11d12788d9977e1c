// The parts of one logical call that two server processes traced, joined by a real collector on each backend
// (decision 0046, docs/intake.md): SDK v2 servers behind one "load balancer", each process instrumented by
// instrumentMcpServer with a tracer provider and resource of its own (bookings-a, bookings-b) exporting OTLP
// protobuf. A booking's first leg reaches A, which stops while the call waits (its leg ends as a part awaiting
// the next), and the second leg reaches B; a task created on A is polled on B (`tasks/get` parts), once at its
// interval and once by a client that does not wait. Each is one call in /api/calls, /api/tools and the trace,
// no loop flag comes from legs or polls, and the impatient client is flagged: with the agent's trace context in
// `_meta`, and from a client that sends none, where every leg and poll is a trace of its own (decision 0054). In one
// Node process the parked calls are shared, so "A stops" is the adapter's own endParked (what setupToolscope's
// shutdown runs).
import { randomBytes } from 'node:crypto';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { runCli, startCollector } from '@toolscope/collector';
import type { Call, Flag, SpanOut, ToolStats } from '@toolscope/collector/schemas';
import { instrumentMcpServer } from '@toolscope/instrument';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKENDS } from '../../packages/collector/test/backends.js';
import { captureIo } from '../../packages/collector/test/harness.js';
import { endParked } from '../../packages/instrument/src/parked.js';
import {
  envelope,
  logicalServer,
  POLL_MS,
  POLLS_TO_COMPLETE,
  rawRpc,
} from '../../packages/instrument/test/mcp/logical-tools.js';

const KEY = 'logical-parts';
const TASKS = 'io.modelcontextprotocol/tasks';
/** The export task's interval: its client polls without waiting, far faster. */
const EXPORT_INTERVAL_MS = 1000;
const exportPolls = new Map<string, number>();

const exportBody = (taskId: string, status: string) => ({
  taskId,
  status,
  createdAt: new Date().toISOString(),
  lastUpdatedAt: new Date().toISOString(),
  ttlMs: 60_000,
  pollIntervalMs: EXPORT_INTERVAL_MS,
});

/** A server with one task tool whose server asks for a poll every second, done after six polls. */
function exportServer(instrument: (server: McpServer) => McpServer): McpServer {
  const server = instrument(
    new McpServer(
      { name: 'exports', version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { [TASKS]: {} } } },
    ),
  );
  server.registerTool(
    'export',
    { description: 'An export, made as a task', inputSchema: z.object({ table: z.string() }) },
    async ({ table }) => {
      const taskId = `export-${table}-${exportPolls.size}`;
      exportPolls.set(taskId, 0);
      return { resultType: 'task', ...exportBody(taskId, 'working') } as never;
    },
  );
  server.server.setRequestHandler(
    'tasks/get',
    { params: z.looseObject({ taskId: z.string() }) },
    async ({ taskId }) => {
      const polls = (exportPolls.get(taskId) ?? 0) + 1;
      exportPolls.set(taskId, polls);
      if (polls < POLLS_TO_COMPLETE) return exportBody(taskId, 'working') as never;
      const result = { resultType: 'complete', content: [{ type: 'text', text: 'exported' }] };
      return { ...exportBody(taskId, 'completed'), result } as never;
    },
  );
  return server;
}

/** One server process: its provider (its own resource) and the two servers it runs, by path. */
function serverProcess(service: string, collectorUrl: string) {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collectorUrl}/v1/traces` })),
    ],
  });
  const options = { tracerProvider: provider, hashKey: KEY };
  const instrument = (server: McpServer) => instrumentMcpServer(server, options);
  const handlers = {
    bookings: createMcpHandler(() => logicalServer(instrument)),
    exports: createMcpHandler(() => exportServer(instrument)),
  };
  const fetchOf =
    (h: ReturnType<typeof createMcpHandler>) => (url: string | URL, init?: RequestInit) =>
      h.fetch(new Request(url, init));
  return {
    provider,
    bookings: rawRpc('http://lb/bookings', fetchOf(handlers.bookings)),
    exports: rawRpc('http://lb/exports', fetchOf(handlers.exports)),
  };
}

type Rpc = ReturnType<typeof rawRpc>;
const resultOf = async (answer: ReturnType<Rpc>) => {
  const a = await answer;
  if (a.kind !== 'result') throw new Error(`the server answered ${JSON.stringify(a.error)}`);
  return a.result;
};

/** A task created on `create`, whose call ends there as a part, polled on `poll` to completion. */
async function taskAcrossProcesses(
  create: Rpc,
  poll: Rpc,
  params: { name: string; arguments: Record<string, unknown>; _meta: object },
  waitMs: number,
): Promise<void> {
  const { taskId } = await resultOf(create({ method: 'tools/call', params }));
  endParked();
  for (let i = 0; i < POLLS_TO_COMPLETE; i++) {
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    await resultOf(poll({ method: 'tasks/get', params: { taskId, _meta: params._meta } }));
  }
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`parts two processes traced: ${backend.name}`, () => {
    it.each([
      { context: true, name: 'in one trace' },
      { context: false, name: 'from a client sending no trace context' },
    ])(
      'a booking, a task polled at its interval and one polled impatiently are one call each, $name',
      async ({ context }) => {
        const place = await backend.location();
        const collector = await startCollector({ db: place.db, port: 0, hashKey: KEY });
        const a = serverProcess('bookings-a', collector.url);
        const b = serverProcess('bookings-b', collector.url);
        try {
          // The agent's span, carried in `_meta` by every request of its turn: the parts share a trace and parent.
          // Without it, each request's span is the root of a trace of its own.
          const traceId = hex(16);
          const meta = context
            ? { ...envelope('raw-agent'), traceparent: `00-${traceId}-${hex(8)}-01` }
            : envelope('raw-agent');
          const book = { name: 'book', arguments: { day: 'monday' }, _meta: meta };
          const first = await resultOf(a.bookings({ method: 'tools/call', params: book }));
          expect(first.resultType).toBe('input_required');
          endParked();
          const inputResponses = { time: { action: 'accept', content: { time: '12:00' } } };
          const booked = await resultOf(
            b.bookings({
              method: 'tools/call',
              params: { ...book, requestState: first.requestState, inputResponses },
            }),
          );
          expect(booked.content).toEqual([{ type: 'text', text: 'booked monday at 12:00' }]);
          const report = { name: 'report', arguments: { month: 'may', outcome: 'completed' } };
          await taskAcrossProcesses(a.bookings, b.bookings, { ...report, _meta: meta }, POLL_MS);
          const exported = { name: 'export', arguments: { table: 'orders' }, _meta: meta };
          await taskAcrossProcesses(a.exports, b.exports, exported, 0);
          await Promise.all([a.provider.forceFlush(), b.provider.forceFlush()]);

          const api = async <T>(path: string): Promise<T> => {
            const res = await fetch(`${collector.url}${path}`);
            expect(res.status, path).toBe(200);
            return (await res.json()) as T;
          };
          // Every part is exported once flushed; the collector commits before it answers, so one read suffices.
          const { calls } = await api<{ calls: Call[] }>(
            context ? `/api/calls?traceId=${traceId}&since=1h` : '/api/calls?since=1h',
          );
          const byTool = new Map(calls.map((c) => [c.tool, c]));
          expect(calls.map((c) => c.tool).sort()).toEqual(['book', 'export', 'report']);
          expect(byTool.get('book')).toMatchObject({
            legs: 2,
            parts: 2,
            complete: true,
            code: null,
            service: 'bookings-a',
          });
          for (const tool of ['report', 'export'])
            expect(byTool.get(tool), tool).toMatchObject({
              parts: POLLS_TO_COMPLETE + 1,
              task: { polls: POLLS_TO_COMPLETE, status: 'completed' },
              complete: true,
              code: null,
            });
          expect(byTool.get('export')?.task?.pollIntervalMs).toBe(EXPORT_INTERVAL_MS);
          // The call runs from the first request to the final poll: at least its waits between polls.
          expect(byTool.get('report')?.durationMs).toBeGreaterThanOrEqual(
            POLL_MS * POLLS_TO_COMPLETE,
          );

          const { tools } = await api<{ tools: ToolStats[] }>('/api/tools?since=1h');
          for (const tool of ['book', 'report', 'export'])
            expect(tools.find((t) => t.name === tool)?.calls, tool).toBe(1);
          expect(tools.some((t) => t.name === '')).toBe(false);

          const { flags } = await api<{ flags: Flag[] }>('/api/flags?since=1h');
          expect(flags.map((f) => [f.kind, f.tool])).toEqual([
            ['polling_faster_than_interval', 'export'],
          ]);
          const [impatient] = flags;
          expect(impatient?.evidence).toMatchObject({
            polls: POLLS_TO_COMPLETE,
            pollIntervalMs: EXPORT_INTERVAL_MS,
            spanIds: [byTool.get('export')?.spanId],
          });
          expect(impatient?.evidence.observedPollIntervalMs).toBeLessThan(EXPORT_INTERVAL_MS / 2);

          // `toolscope report` counts the same: one call per tool, the impatient client's flag and no other.
          const io = captureIo();
          expect(await runCli(['report', '--url', collector.url, '--format', 'json'], io)).toBe(0);
          const printed = JSON.parse(io.stdout) as {
            tools: { name: string; calls: number }[];
            flags: { kind: string }[];
          };
          expect(printed.tools.map((t) => [t.name, t.calls]).sort()).toEqual([
            ['book', 1],
            ['export', 1],
            ['report', 1],
          ]);
          expect(printed.flags.map((f) => f.kind)).toEqual(['polling_faster_than_interval']);

          if (!context) {
            // Each holder's trace reads the stored join: the whole call on the holder's span, its parts elsewhere.
            for (const tool of ['book', 'report', 'export']) {
              const held = byTool.get(tool);
              const page = await api<{ spans: SpanOut[] }>(`/api/traces/${held?.traceId}`);
              const holder = page.spans.find((s) => s.spanId === held?.spanId);
              expect(holder?.call, tool).toMatchObject({ parts: held?.parts, joinedTo: null });
              expect(page.spans.filter((s) => s.call?.joinedTo)).toEqual([]);
            }
            return;
          }
          // The trace: every part's span is there, each naming the span that holds its call.
          const { spans } = await api<{ spans: SpanOut[] }>(`/api/traces/${traceId}`);
          const joinedTo = (tool: string) =>
            spans.filter((s) => s.call?.joinedTo === byTool.get(tool)?.spanId).length;
          expect([joinedTo('book'), joinedTo('report'), joinedTo('export')]).toEqual([
            1,
            POLLS_TO_COMPLETE,
            POLLS_TO_COMPLETE,
          ]);
          expect(new Set(spans.map((s) => s.resource['service.name']))).toEqual(
            new Set(['bookings-a', 'bookings-b']),
          );
        } finally {
          await Promise.all([a.provider.shutdown(), b.provider.shutdown()]);
          await collector.close();
          await place.drop();
        }
      },
    );
  });
}
