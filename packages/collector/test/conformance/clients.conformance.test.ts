// Traffic by MCP client, on every backend: real MCP clients of two names (one in two versions) call an
// instrumented server, whose spans (and one client's own) reach a collector through the real OTLP protobuf
// exporter; calls made outside MCP name no client. `/api/tools?client=` counts one client's calls only, the
// tool page breaks a tool's calls down by client and version, each call counted once, and both agree whether
// the range is read from the rollups or, at its edges, from raw calls; `/api/calls?client=` lists one client's
// calls, and `/api/timeseries?client=` the same calls over time.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  defineTool,
  instrumentMcpClient,
  instrumentMcpServer,
  registerMcpTool,
} from '@toolscope/instrument';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolDetailResponse, ToolsResponse } from '../../src/api/schemas.js';
import { type Collector, startCollector } from '../../src/index.js';
import { BACKENDS } from '../backends.js';
import { exportingProvider, getJson } from '../harness.js';
import { useStores } from './stores.js';

type Provider = ReturnType<typeof exportingProvider>['provider'];

function tools(provider: Provider) {
  const getOrder = defineTool({
    name: 'get_order',
    version: '2',
    effect: 'read',
    description: 'Orders of one customer',
    input: z.object({ customerId: z.string().min(1) }).strict(),
    output: z.object({ customerId: z.string() }),
    tracerProvider: provider,
    hashKey: 'clients',
    execute: ({ customerId }, ctx) =>
      customerId === 'gone' ? ctx.reject('not_found', 'no such customer') : { customerId },
  });
  const searchDocs = defineTool({
    name: 'search_docs',
    version: '1',
    effect: 'read',
    description: 'Search the docs',
    input: z.object({ q: z.string() }).strict(),
    output: z.object({ hits: z.number() }),
    tracerProvider: provider,
    hashKey: 'clients',
    execute: () => ({ hits: 1 }),
  });
  return { getOrder, searchDocs };
}

/** One MCP session of a client named `name` `version` making `calls`; `traced`: the client's own spans too. */
async function session(
  provider: Provider,
  client: { name: string; version: string; traced?: boolean },
  calls: { tool: string; args: Record<string, unknown> }[],
): Promise<void> {
  const { getOrder, searchDocs } = tools(provider);
  const server = instrumentMcpServer(new McpServer({ name: 'orders', version: '1' }), {
    tracerProvider: provider,
    hashKey: 'clients',
  });
  registerMcpTool(server, getOrder);
  registerMcpTool(server, searchDocs);
  const plain = new Client({ name: client.name, version: client.version });
  const agent = client.traced
    ? instrumentMcpClient(plain, { tracerProvider: provider, hashKey: 'clients' })
    : plain;
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), agent.connect(a)]);
  for (const c of calls) await agent.callTool({ name: c.tool, arguments: c.args });
  await agent.close();
}

const order = (customerId: unknown) => ({ tool: 'get_order', args: { customerId } });

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`traffic by client: ${backend.name}`, () => {
    const { fresh } = useStores(backend);
    let collector: Collector | undefined;
    afterEach(async () => {
      await collector?.close();
      collector = undefined;
    });

    it('counts one client’s calls in /api/tools?client= and breaks the tool page down by client', async () => {
      collector = await startCollector({ db: (await fresh()).db, port: 0 });
      const { provider } = exportingProvider(collector.url, 'proto');
      await session(provider, { name: 'claude-desktop', version: '0.9.1' }, [
        order('c1'),
        order(42), // INVALID_INPUT
        order('c2'),
      ]);
      await session(provider, { name: 'claude-desktop', version: '0.10.0' }, [
        order('c3'),
        order('c4'),
        { tool: 'search_docs', args: { q: 'refunds' } },
      ]);
      // Traced on both sides: each call is a client span and a server span, counted once.
      await session(provider, { name: 'cursor', version: '1.2.3', traced: true }, [
        order('c5'),
        order(''), // INVALID_INPUT
        order('gone'), // REJECTED
        order('gone'), // REJECTED
        order('c6'),
      ]);
      // Outside MCP: no client named.
      const { getOrder } = tools(provider);
      await getOrder.call({ customerId: 'c7' });
      await getOrder.call({ customerId: 'gone' });
      await provider.forceFlush();
      await provider.shutdown();

      const url = collector.url;
      const now = Date.now();
      // The whole range from the rollups; then one ending now, whose last minute is read from raw calls.
      for (const range of [
        `since=1h&until=${now + 3_600_000}`,
        `since=${now - 30_000}&until=${now + 1}`,
      ]) {
        const page = await getJson<ToolDetailResponse>(`${url}/api/tools/get_order?${range}`);
        expect(page.status).toBe(200);
        expect(page.body.clients).toEqual([
          {
            name: 'cursor',
            version: '1.2.3',
            calls: 5,
            errors: 3,
            errorRate: 0.6,
            topCode: 'REJECTED',
          },
          {
            name: 'claude-desktop',
            version: '0.9.1',
            calls: 3,
            errors: 1,
            errorRate: 0.3333,
            topCode: 'INVALID_INPUT',
          },
          {
            name: 'claude-desktop',
            version: '0.10.0',
            calls: 2,
            errors: 0,
            errorRate: 0,
            topCode: null,
          },
          { name: null, version: null, calls: 2, errors: 1, errorRate: 0.5, topCode: 'REJECTED' },
        ]);
        // Every call of the tool is in one row.
        expect(page.body.clients.reduce((n, c) => n + c.calls, 0)).toBe(page.body.stats.calls);

        const list = async (query: string) => {
          const res = await getJson<ToolsResponse>(`${url}/api/tools?${range}&${query}`);
          expect(res.status).toBe(200);
          return res.body.tools.map((t) => ({
            name: t.name,
            calls: t.calls,
            errors: t.errors,
            codes: t.codes,
            versions: t.versions,
            latency: t.p50Ms !== null && t.p95Ms !== null,
          }));
        };
        // claude-desktop 0.10.0's one search, whichever of its filters reads it.
        const searchDocs = {
          name: 'search_docs',
          calls: 1,
          errors: 0,
          codes: {},
          versions: ['1'],
          latency: true,
        };
        expect(await list('client=cursor')).toEqual([
          {
            name: 'get_order',
            calls: 5,
            errors: 3,
            codes: { INVALID_INPUT: 1, REJECTED: 2 },
            versions: ['2'],
            latency: true,
          },
        ]);
        expect(await list('client=claude-desktop')).toEqual([
          {
            name: 'get_order',
            calls: 5,
            errors: 1,
            codes: { INVALID_INPUT: 1 },
            versions: ['2'],
            latency: true,
          },
          searchDocs,
        ]);
        expect(await list('client=claude-desktop&clientVersion=0.10.0')).toEqual([
          { name: 'get_order', calls: 2, errors: 0, codes: {}, versions: ['2'], latency: true },
          searchDocs,
        ]);
        expect(await list('client=claude-desktop&clientVersion=9.9.9')).toEqual([]);
        expect(await list('client=nobody')).toEqual([]);
        // A client's own side: cursor's client spans, read alone.
        expect(await list('client=cursor&side=client')).toMatchObject([
          { name: 'get_order', calls: 5, errors: 3 },
        ]);
      }

      // Calls carry the client's name and version.
      const calls = await getJson<{
        calls: { clientName: string | null; clientVersion: string | null }[];
      }>(`${url}/api/calls?tool=get_order&since=1h&limit=50`);
      const seen = new Set(calls.body.calls.map((c) => `${c.clientName}@${c.clientVersion}`));
      expect([...seen].sort()).toEqual([
        'claude-desktop@0.10.0',
        'claude-desktop@0.9.1',
        'cursor@1.2.3',
        'null@null',
      ]);

      // `/api/calls?client=`: one client's calls, each once (cursor's are client and server rows), and one
      // version's; a version of none, or a client that made no call, none.
      const byClient = async (query: string) => {
        const res = await getJson<{
          calls: {
            tool: string;
            code: string | null;
            clientName: string | null;
            clientVersion: string | null;
          }[];
        }>(`${url}/api/calls?since=1h&limit=50&${query}`);
        expect(res.status, query).toBe(200);
        return res.body.calls;
      };
      const cursor = await byClient('client=cursor');
      expect(cursor).toHaveLength(5);
      expect(new Set(cursor.map((c) => `${c.clientName}@${c.clientVersion}`))).toEqual(
        new Set(['cursor@1.2.3']),
      );
      expect(cursor.filter((c) => c.code === 'REJECTED')).toHaveLength(2);
      expect(await byClient('client=cursor&side=client')).toHaveLength(5);
      expect((await byClient('client=claude-desktop')).map((c) => c.tool).sort()).toEqual([
        'get_order',
        'get_order',
        'get_order',
        'get_order',
        'get_order',
        'search_docs',
      ]);
      const newer = await byClient('client=claude-desktop&clientVersion=0.10.0');
      expect(newer.map((c) => c.tool).sort()).toEqual(['get_order', 'get_order', 'search_docs']);
      expect(newer.every((c) => c.clientVersion === '0.10.0')).toBe(true);
      expect(await byClient('client=claude-desktop&clientVersion=9.9.9')).toEqual([]);
      expect(await byClient('client=nobody')).toEqual([]);
      expect(await byClient('client=cursor&tool=search_docs')).toEqual([]);

      // `/api/timeseries?client=`: the same calls over time, from the client rollups.
      const overTime = async (query: string, step = '1m') => {
        const res = await getJson<{ points: { calls: number; errors: number }[] }>(
          `${url}/api/timeseries?since=1h&step=${step}&${query}`,
        );
        expect(res.status, query).toBe(200);
        const sum = (k: 'calls' | 'errors') => res.body.points.reduce((n, p) => n + p[k], 0);
        return { calls: sum('calls'), errors: sum('errors') };
      };
      expect(await overTime('client=cursor')).toEqual({ calls: 5, errors: 3 });
      // Steps of an hour read the hour rollups.
      expect(await overTime('client=cursor', '1h')).toEqual({ calls: 5, errors: 3 });
      expect(await overTime('client=claude-desktop&clientVersion=0.9.1', '1h')).toEqual({
        calls: 3,
        errors: 1,
      });
      expect(await overTime('client=claude-desktop')).toEqual({ calls: 6, errors: 1 });
      expect(await overTime('client=claude-desktop&clientVersion=0.10.0')).toEqual({
        calls: 3,
        errors: 0,
      });
      expect(await overTime('client=claude-desktop&tool=get_order')).toEqual({
        calls: 5,
        errors: 1,
      });
      expect(await overTime('client=nobody')).toEqual({ calls: 0, errors: 0 });
      // Every call once without a client: the two clients' and the two that named none.
      expect(await overTime('tool=get_order')).toEqual({ calls: 12, errors: 5 });
    });

    it('refuses a client query it cannot answer with 400 and a message naming the parameter', async () => {
      collector = await startCollector({ db: (await fresh()).db, port: 0 });
      for (const [query, message] of [
        ['clientVersion=1.0', /clientVersion: needs client/],
        ['client=', /client: expected the client's name/],
        [`client=${'x'.repeat(129)}`, /client: a client's name is stored cut to 128 characters/],
        [`client=a&clientVersion=${'1'.repeat(65)}`, /clientVersion: .*64 characters/],
      ] as const) {
        for (const route of ['tools', 'calls', 'timeseries']) {
          const res = await getJson<{ error: { code: string; message: string } }>(
            `${collector.url}/api/${route}?${query}`,
          );
          expect(res.status, `${route} ${query}`).toBe(400);
          expect(res.body.error.code).toBe('INVALID_PARAMETER');
          expect(res.body.error.message, `${route} ${query}`).toMatch(message);
        }
      }
    });
  });
}
