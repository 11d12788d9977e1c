// Both SDK majors over Streamable HTTP, each server in a child process (the docs' own server files): SDK v2's
// 2025 sessions (NodeStreamableHTTPServerTransport) and 2026-07-28 requests (createMcpHandler, client pinned to
// the revision), SDK 1.x sessions, and each major's client against the other's server. The HTTP requests carry no
// trace headers: only `_meta` can make the server span the child of the client span.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentMcpClient } from '../../src/index.js';
import {
  type AnyClient,
  agentTurn,
  checkTurn,
  type Expected,
  matrixTracing,
  receiverFor,
  serverEnv,
  startHttpServer,
} from './mcp-v2-matrix.js';

const { tracing, install, uninstall } = matrixTracing();
type Server = {
  receiver: Awaited<ReturnType<typeof receiverFor>>;
  http: Awaited<ReturnType<typeof startHttpServer>>;
};
const servers: Record<'v1' | 'v2', Server> = {} as Record<'v1' | 'v2', Server>;
// Two server processes start at once on a machine others share: the wait is for their "listening" line.
const SLOW = 120_000;

beforeAll(async () => {
  install();
  // Both server processes start at once: their start-up is most of this file's time.
  await Promise.all(
    (
      [
        ['v1', 'mcp-v2-sdk1-server.ts'],
        ['v2', 'mcp-v2-http-server.ts'],
      ] as const
    ).map(async ([key, file]) => {
      const receiver = await receiverFor();
      servers[key] = { receiver, http: await startHttpServer(file, serverEnv(receiver.endpoint)) };
    }),
  );
}, SLOW);
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.http.stop()));
  await Promise.all(Object.values(servers).map((s) => s.receiver.close()));
  uninstall();
});

const V1_SERVER = { name: 'orders', version: '1.3.0' };
const V2_SERVER = { name: 'orders', version: '1.4.0' };

type Case = {
  server: 'v1' | 'v2';
  connect: (url: URL) => Promise<AnyClient>;
  want: Omit<Expected, 'transport' | 'conversationId'>;
};

const v1Client = (name: string) => async (url: URL) => {
  const client = instrumentMcpClient(new ClientV1({ name, version: '1.0.1' }), {
    conversationId: `conv-${name}`,
  });
  await client.connect(new HttpV1(url));
  return client;
};
const v2Client =
  (name: string, versionNegotiation?: { mode: { pin: string } }) => async (url: URL) => {
    const client = instrumentMcpClient(
      new Client({ name, version: '2.0.2' }, versionNegotiation ? { versionNegotiation } : {}),
      { conversationId: `conv-${name}` },
    );
    await client.connect(new StreamableHTTPClientTransport(url));
    return client;
  };

const cases: [string, Case][] = [
  [
    'SDK v2 client and server, 2025 session',
    {
      server: 'v2',
      connect: v2Client('agent-v2-legacy'),
      want: {
        client: { name: 'agent-v2-legacy', version: '2.0.2' },
        server: V2_SERVER,
        protocol: 'legacy',
      },
    },
  ],
  [
    'SDK v2 client pinned to 2026-07-28, createMcpHandler',
    {
      server: 'v2',
      connect: v2Client('agent-v2-modern', { mode: { pin: '2026-07-28' } }),
      want: {
        client: { name: 'agent-v2-modern', version: '2.0.2' },
        server: V2_SERVER,
        protocol: '2026-07-28',
      },
    },
  ],
  [
    'SDK 1.x client and server',
    {
      server: 'v1',
      connect: v1Client('agent-v1'),
      want: {
        client: { name: 'agent-v1', version: '1.0.1' },
        server: V1_SERVER,
        protocol: 'legacy',
      },
    },
  ],
  [
    'SDK 1.x client, SDK v2 server',
    {
      server: 'v2',
      connect: v1Client('agent-v1-to-v2'),
      want: {
        client: { name: 'agent-v1-to-v2', version: '1.0.1' },
        server: V2_SERVER,
        protocol: 'legacy',
      },
    },
  ],
  [
    'SDK v2 client, SDK 1.x server',
    {
      server: 'v1',
      connect: v2Client('agent-v2-to-v1'),
      want: {
        client: { name: 'agent-v2-to-v1', version: '2.0.2' },
        server: V1_SERVER,
        protocol: 'legacy',
      },
    },
  ],
];

describe('MCP over Streamable HTTP across processes, both SDK majors', () => {
  it.each(cases)(
    '%s: one trace per call, codes, client and server named',
    async (_, c) => {
      const { receiver, http } = servers[c.server];
      const client = await c.connect(http.url);
      const traceId = await agentTurn(client);
      await client.close();
      const spans = await receiver.settle(traceId, 6);
      checkTurn(tracing, traceId, spans, {
        ...c.want,
        transport: 'tcp',
        conversationId: `conv-${c.want.client.name}`,
      });
      // Every tool the server listed reached the catalog as a contract, once per process.
      expect(receiver.contractNames().sort()).toEqual(['get_order', 'mean']);
    },
    SLOW,
  );
});
