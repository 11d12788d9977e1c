// Both SDK majors over stdio, the server in a child process (the docs' own server files): SDK 1.x, SDK v2 in the
// 2025 negotiation and SDK v2 negotiating 2026-07-28 (`auto`, whose probe runs on a sibling process). Each
// configuration is one agent turn against one server process; the spans must say one trace per call.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentMcpClient } from '../../src/index.js';
import { agentClient } from './mcp-v2-agent.js';
import {
  type AnyClient,
  agentTurn,
  checkTurn,
  clientSpansOf,
  type Expected,
  matrixTracing,
  receiverFor,
  serverEnv,
  serverFile,
  TSX_IMPORT,
} from './mcp-v2-matrix.js';

const { tracing, install, uninstall } = matrixTracing();
beforeAll(install);
afterAll(uninstall);

type Turn = { traceId: string; receiver: Awaited<ReturnType<typeof receiverFor>> };

/** Runs one turn against a fresh server process; its spans are exported when it exits on the closed stdin. */
async function turnOver(file: string, connect: (params: StdioParams) => Promise<AnyClient>) {
  const receiver = await receiverFor();
  const client = await connect({
    command: process.execPath,
    args: [...TSX_IMPORT, serverFile(file)],
    env: serverEnv(receiver.endpoint),
    stderr: 'inherit',
  });
  const traceId = await agentTurn(client);
  await client.close(); // ends stdin: the server exits, flushing its spans first
  await receiver.close();
  return { traceId, receiver };
}
type StdioParams = {
  command: string;
  args: string[];
  env: Record<string, string>;
  stderr: 'inherit';
};

const turns: Record<string, Promise<Turn>> = {};
// Three server processes start at once on a machine others share: each test waits for its own, on progress.
const SLOW = 120_000;
beforeAll(() => {
  // The three server processes start at once: their start-up is most of this file's time.
  turns.v1 = turnOver('mcp-v2-sdk1-server.ts', async (params) => {
    const client = instrumentMcpClient(new ClientV1({ name: 'agent-v1', version: '1.0.1' }), {
      conversationId: 'conv-v1-stdio',
    });
    await client.connect(new StdioV1(params));
    return client;
  });
  turns.legacy = turnOver('mcp-v2-stdio-server.ts', async (params) => {
    const client = instrumentMcpClient(new Client({ name: 'agent-v2', version: '2.0.2' }), {
      conversationId: 'conv-v2-stdio-legacy',
    });
    await client.connect(new StdioClientTransport(params));
    return client;
  });
  turns.modern = turnOver('mcp-v2-stdio-server.ts', async (params) => {
    const client = agentClient('conv-v2-stdio-modern');
    await client.connect(new StdioClientTransport(params));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    return client;
  });
  // Settled here so that a failing start fails its own test, not the hook.
  for (const t of Object.values(turns)) t.catch(() => {});
});

const V2_SERVER = { name: 'orders', version: '1.4.0' };
const cases: [string, string, Omit<Expected, 'transport'>][] = [
  [
    'SDK 1.x client and server',
    'v1',
    {
      client: { name: 'agent-v1', version: '1.0.1' },
      server: { name: 'orders', version: '1.3.0' },
      protocol: 'legacy',
      conversationId: 'conv-v1-stdio',
    },
  ],
  [
    'SDK v2, 2025 negotiation (initialize)',
    'legacy',
    {
      client: { name: 'agent-v2', version: '2.0.2' },
      server: V2_SERVER,
      protocol: 'legacy',
      conversationId: 'conv-v2-stdio-legacy',
    },
  ],
  [
    'SDK v2, 2026-07-28 negotiated by auto (serveStdio)',
    'modern',
    {
      client: { name: 'orders-agent', version: '2.1.0' },
      server: V2_SERVER,
      protocol: '2026-07-28',
      conversationId: 'conv-v2-stdio-modern',
    },
  ],
];

describe('MCP over stdio across processes, both SDK majors', () => {
  it.each(cases)(
    '%s: one trace per call, codes, client and server named',
    async (_, key, want) => {
      const { traceId, receiver } = await (turns[key] as Promise<Turn>);
      const clients = clientSpansOf(tracing.spans(), traceId);
      checkTurn(clients, traceId, receiver.spansOf(traceId), { ...want, transport: 'pipe' });
      // Every tool the server listed reached the catalog as a contract, once.
      expect(receiver.contractNames().sort()).toEqual(['get_order', 'mean']);
    },
    SLOW,
  );
});
