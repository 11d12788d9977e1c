// The cross-process matrix of both SDK majors (docs/mcp.md), shared by mcp-v2-stdio.test.ts (servers exporting to
// a loopback receiver each) and test/e2e/mcp-v2-collector.test.ts (Streamable HTTP, into a collector): one agent
// turn per configuration, then the checks every configuration must pass: one trace per call with the server span
// the child of the client span (only the wire carries that across processes), the codes and failing paths, who
// called whom.
import { fileURLToPath } from 'node:url';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';
import { startReceiver } from '../otlp-receiver.js';
import { createTracing } from '../tracing.js';
import { type SpanView, viewOf } from './scenario.js';

export const TSX_IMPORT = [
  '--import',
  import.meta.resolve('tsx'),
  '--conditions=@toolscope/source',
];
export const serverFile = (name: string) => fileURLToPath(new URL(name, import.meta.url));
export const HASH_KEY = 'mcp-v2-matrix';

/** What the clients of both SDK majors share for this test. */
export type AnyClient = {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
};

/** The agent's turn: each call with the code and failing path its server span must carry. */
export type Call = {
  tool: string;
  args: Record<string, unknown>;
  code?: string;
  path?: string;
};
export const CALLS: readonly Call[] = [
  { tool: 'get_order', args: { orderId: 'o-1' } },
  { tool: 'get_order', args: { orderId: 7 }, code: 'INVALID_INPUT', path: 'orderId' },
  { tool: 'get_order', args: { orderId: 'o-404' }, code: 'REJECTED' },
  { tool: 'mean', args: { values: [1, 2, 3] } },
  { tool: 'mean', args: { values: 'x' }, code: 'INVALID_INPUT', path: 'values' },
  { tool: 'mean', args: { values: [] }, code: 'INVALID_OUTPUT', path: 'mean' },
];

export type Expected = {
  client: { name: string; version: string };
  server: { name: string; version: string };
  /** `mcp.protocol.version` on both sides: exactly this, or a 2025 revision for `legacy`. */
  protocol: '2026-07-28' | 'legacy';
  transport: 'pipe' | 'tcp';
  conversationId: string;
};

/** Client spans in process, the global context manager a real agent has, and the environment of the servers. */
export function matrixTracing() {
  const tracing = createTracing();
  const key = process.env.TOOLSCOPE_HASH_KEY;
  return {
    tracing,
    install() {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(tracing.provider);
      // The agent's output hashes use the deployment's key, as the servers' do (no per-process key warning).
      process.env.TOOLSCOPE_HASH_KEY = HASH_KEY;
    },
    uninstall() {
      trace.disable();
      context.disable();
      if (key === undefined) delete process.env.TOOLSCOPE_HASH_KEY;
      else process.env.TOOLSCOPE_HASH_KEY = key;
    },
  };
}

/** The environment of a server process exporting OTLP/JSON to `endpoint`, promptly. */
export function serverEnv(endpoint: string, extra: Record<string, string> = {}) {
  return {
    ...(process.env as Record<string, string>),
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '20',
    TOOLSCOPE_HASH_KEY: HASH_KEY,
    ...extra,
  };
}

/** A receiver of one server process's spans. */
export async function receiverFor() {
  const receiver = await startReceiver();
  const spansOf = (traceId: string) => receiver.jsonSpans().filter((s) => s.traceId === traceId);
  return {
    ...receiver,
    spansOf,
    contractNames: () =>
      receiver
        .allJsonSpans()
        .filter((s) => s.name.startsWith('tool_contract '))
        .map((s) => s.name.slice('tool_contract '.length)),
  };
}

/** One agent turn in a root span of its own: the tool list, then each call in order. Returns the trace id. */
export async function agentTurn(client: AnyClient, calls = CALLS): Promise<string> {
  return trace.getTracer('agent').startActiveSpan('agent.turn', async (root) => {
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['get_order', 'mean']);
    for (const call of calls) await client.callTool({ name: call.tool, arguments: call.args });
    root.end();
    return root.spanContext().traceId;
  });
}

const attr = (s: SpanView | undefined, key: string) => s?.attributes[key];

/** The CLIENT spans of one trace, in the order they started. */
export function clientSpansOf(spans: ReadableSpan[], traceId: string): SpanView[] {
  return spans
    .filter((s) => s.spanContext().traceId === traceId && s.kind === 2)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    .map(viewOf);
}

/** The checks of one configuration's turn: its client spans (here) and server spans (from another process). */
export function checkTurn(
  clients: SpanView[],
  traceId: string,
  serverSpans: SpanView[],
  want: Expected,
  calls = CALLS,
): void {
  expect(clients.map((c) => attr(c, 'gen_ai.tool.name'))).toEqual(calls.map((c) => c.tool));
  expect(serverSpans.filter((s) => s.kind === 1)).toHaveLength(calls.length);
  for (const [i, call] of calls.entries()) {
    const c = clients[i];
    const label = `${call.tool} #${i}`;
    // The only way across processes: `_meta.traceparent` of this very request.
    const servers = serverSpans.filter((s) => s.parentSpanId === c?.spanId);
    expect(servers, `${label}: server spans whose parent is the client span`).toHaveLength(1);
    const s = servers[0];
    expect(s?.traceId).toBe(traceId);
    expect(s?.name).toBe(`tools/call ${call.tool}`);
    expect(attr(s, 'jsonrpc.request.id'), label).toBe(attr(c, 'jsonrpc.request.id'));
    expect(typeof attr(s, 'jsonrpc.request.id')).toBe('string');
    expect(attr(s, 'gen_ai.conversation.id'), label).toBe(want.conversationId);
    expect(attr(s, 'network.transport'), label).toBe(want.transport);
    expect(attr(s, 'toolscope.mcp.client.name'), label).toBe(want.client.name);
    expect(attr(s, 'toolscope.mcp.client.version'), label).toBe(want.client.version);
    expect(attr(c, 'toolscope.mcp.server.name'), label).toBe(want.server.name);
    expect(attr(c, 'toolscope.mcp.server.version'), label).toBe(want.server.version);
    const version = attr(s, 'mcp.protocol.version');
    if (want.protocol === 'legacy') expect(String(version), label).toMatch(/^2025-/);
    else expect(version, label).toBe(want.protocol);
    expect(attr(c, 'mcp.protocol.version'), label).toBe(version);
    // 2026-07-28 has no sessions (OTel must not get one); a 2025 Streamable HTTP session has its id on both sides.
    const session = attr(s, 'mcp.session.id');
    if (want.protocol === '2026-07-28' || want.transport === 'pipe')
      expect(session).toBeUndefined();
    else expect(session, label).toEqual(expect.any(String));
    expect(attr(c, 'mcp.session.id'), label).toBe(session);
    expect(attr(s, 'toolscope.error.code'), label).toBe(call.code);
    expect(attr(c, 'toolscope.error.code'), label).toBe(call.code);
    expect(s?.statusCode, label).toBe(call.code ? 2 : 0);
    if (call.path) {
      const issues = JSON.parse(String(attr(s, 'toolscope.validation.issues'))) as {
        path: string;
      }[];
      expect(
        issues.map((x) => x.path),
        label,
      ).toEqual([call.path]);
    }
  }
}
