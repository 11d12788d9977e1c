// `toolscope-proxy` over stdio in front of real servers nobody here wrote (@modelcontextprotocol/server-everything
// and server-filesystem from npm) and a low-level SDK `Server` that breaks its own outputSchema, exporting to a
// real collector on a SQLite file: bytes and listings unchanged, one span per tools/call with the span contract,
// the client's traceparent honoured and the proxy's own passed on, contracts in the catalog, broken output
// recorded (and withheld only with --enforce-output), and a killed upstream ending the session with its spans.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, reader } from './proxy-collector.js';
import { direct, EVERYTHING, FILESYSTEM, LIAR, throughProxy } from './proxy-process.js';

const KEY = 'proxy-test-key';
const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-'));
let collector: Collector;
let flags: string[];
const env = { TOOLSCOPE_HASH_KEY: KEY };

let api: ReturnType<typeof reader>['api'];
let callsOf: ReturnType<typeof reader>['callsOf'];
let spanOf: ReturnType<typeof reader>['spanOf'];
beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'proxy.db'), port: 0, hashKey: KEY });
  flags = ['--otlp-endpoint', collector.url];
  ({ api, callsOf, spanOf } = reader(collector.url));
});
afterAll(async () => {
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('toolscope-proxy over stdio', () => {
  it('passes server-everything through unchanged and traces each call with the span contract', async () => {
    const upstream = [process.execPath, EVERYTHING, 'stdio'];
    const plain = await direct(upstream);
    const expected = await plain.client.listTools();
    await plain.done();

    const p = await throughProxy(upstream, { flags, env });
    const listed = await p.client.listTools();
    expect(listed).toEqual(expected);
    const echoed = await p.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    // A structured result that keeps its advertised outputSchema is a success.
    const weather = await p.client.callTool({
      name: 'get-structured-content',
      arguments: { location: 'New York' },
    });
    expect(weather.structuredContent).toBeDefined();
    // Arguments the server refuses: the SDK answers an isError result.
    const refused = await p.client.callTool({ name: 'get-sum', arguments: { a: 'x', b: 2 } });
    expect(refused.isError).toBe(true);
    // Params that are not a tools/call at all: a JSON-RPC error from the upstream.
    const protocolError = await p.client
      .request(
        { method: 'tools/call', params: { name: 'echo', arguments: 'not-an-object' } as never },
        CallToolResultSchema,
      )
      .then(
        () => undefined,
        (e: { code: number }) => e.code,
      );
    expect(protocolError).toBeLessThan(-32000);
    expect(await p.done()).toBe(0);
    expect(
      p.transport.stderr
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('{') || l.startsWith('Starting')),
    ).toBe(true);

    const [echo] = await callsOf('echo', 2);
    const ok = await spanOf((await callsOf('echo', 2)).find((c) => c.code === null) as Call);
    expect(ok.name).toBe('tools/call echo');
    expect(ok.kind).toBe(2); // SERVER
    expect(ok.resource['service.name']).toBe('mcp-servers/everything');
    expect(ok.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'jsonrpc.request.id': expect.any(String),
      'network.transport': 'pipe',
      'mcp.protocol.version': expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      'toolscope.mcp.client.name': 'proxy-test-agent',
      'toolscope.proxy': true,
      'toolscope.schema.version': 'unversioned',
      'toolscope.schema.hash': expect.stringMatching(/^[0-9a-f]{16}$/),
      'toolscope.input.shape': 'message:string',
      'toolscope.input.hash': expect.stringMatching(/^[0-9a-f]{16}$/),
      'toolscope.output.hash': expect.stringMatching(/^[0-9a-f]{16}$/),
      'toolscope.output.bytes': expect.any(Number),
      'toolscope.output.tokens': expect.any(Number),
    });
    expect(ok.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(echo).toBeDefined();
    const protocol = (await callsOf('echo', 2)).find((c) => c.code !== null) as Call;
    expect((await spanOf(protocol)).attributes).toMatchObject({
      'error.type': String(protocolError),
      'rpc.response.status_code': String(protocolError),
      'toolscope.error.code': 'FAILED',
    });
    const [sum] = await callsOf('get-sum', 1);
    expect((await spanOf(sum as Call)).attributes).toMatchObject({
      'error.type': 'tool_error',
      'toolscope.error.code': 'INVALID_INPUT',
    });
    const [structured] = await callsOf('get-structured-content', 1);
    expect(structured?.code).toBeNull();
    // Every listed tool's contract is in the catalog, under the server's own name.
    const { contracts } = await api<{ contracts: { services: string[]; inputSchema: unknown }[] }>(
      '/api/tools/echo/contracts',
    );
    expect(contracts).toHaveLength(1);
    expect(contracts[0]?.services).toEqual(['mcp-servers/everything']);
    expect(contracts[0]?.inputSchema).toEqual(
      expected.tools.find((t) => t.name === 'echo')?.inputSchema,
    );
  });

  it('honours the client traceparent and passes its own span upstream in _meta', async () => {
    const p = await throughProxy([process.execPath, LIAR], { flags, env });
    await p.client.listTools();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const shown = await p.client.callTool({
      name: 'show_meta',
      arguments: {},
      _meta: { traceparent: `00-${traceId}-${parent}-01`, 'example.com/keep': 'yes' },
    });
    const fresh = await p.client.callTool({ name: 'show_meta', arguments: {} });
    expect(await p.done()).toBe(0);
    const calls = await callsOf('show_meta', 2);
    const child = calls.find((c) => c.traceId === traceId) as Call;
    const span = await spanOf(child);
    expect(span.parentSpanId).toBe(parent);
    // The upstream saw the proxy's span as its parent, and the client's other _meta keys as sent.
    const seen = JSON.parse((shown.content as { text: string }[])[0]?.text ?? 'null');
    expect(seen).toEqual({
      traceparent: `00-${traceId}-${span.spanId}-01`,
      'example.com/keep': 'yes',
    });
    const started = calls.find((c) => c.traceId !== traceId) as Call;
    const seenFresh = JSON.parse((fresh.content as { text: string }[])[0]?.text ?? 'null');
    // A call outside any trace of the client's gets the session's conversation, passed on as the client would.
    expect(seenFresh).toEqual({
      traceparent: `00-${started.traceId}-${started.spanId}-01`,
      'toolscope.dev/conversation-id': started.conversationId,
    });
    expect((await spanOf(started)).parentSpanId).toBeNull();
  });

  it('records a result that breaks its outputSchema as INVALID_OUTPUT and forwards it unchanged', async () => {
    const p = await throughProxy([process.execPath, LIAR], { flags, env });
    await p.client.listTools();
    const raw = await p.client.request(
      { method: 'tools/call', params: { name: 'count_items', arguments: { box: 'b1' } } },
      CallToolResultSchema,
    );
    expect(raw).toEqual({
      content: [{ type: 'text', text: 'many' }],
      structuredContent: { count: 'many-secret' },
    });
    expect(await p.done()).toBe(0);
    const [call] = await callsOf('count_items', 1);
    const span = await spanOf(call as Call);
    expect(span.resource['service.name']).toBe('liar');
    expect(span.resource['service.version']).toBe('3.1.0');
    expect(span.attributes).toMatchObject({
      'error.type': 'INVALID_OUTPUT',
      'toolscope.error.code': 'INVALID_OUTPUT',
      'toolscope.effect': 'read',
    });
    expect(call?.issues.map((i) => i.path)).toEqual(['count']);
    expect(JSON.stringify(span)).not.toContain('many-secret');
  });

  it('answers a broken result with an isError envelope under --enforce-output', async () => {
    const p = await throughProxy([process.execPath, LIAR], {
      flags: [...flags, '--enforce-output'],
      env,
    });
    await p.client.listTools();
    const result = await p.client.callTool({ name: 'count_items', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const envelope = JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}');
    expect(envelope).toMatchObject({
      ok: false,
      code: 'INVALID_OUTPUT',
      issues: [{ path: 'count' }],
    });
    expect(JSON.stringify(envelope)).not.toContain('many-secret');
    expect(await p.done()).toBe(0);
  });

  it('ends a call in flight as upstream_exited when the upstream is killed, flushes, and exits with its code', async () => {
    const p = await throughProxy([process.execPath, LIAR], { flags, env });
    await p.client.listTools();
    const answer = p.client.callTool({ name: 'crash', arguments: {} }).catch((e: Error) => e);
    expect(await p.transport.exited).toBe(137);
    expect(await answer).toBeInstanceOf(Error);
    const [call] = await callsOf('crash', 1);
    expect((await spanOf(call as Call)).attributes).toMatchObject({
      'error.type': 'upstream_exited',
      'toolscope.error.code': 'FAILED',
      'toolscope.partial_effect': true,
    });
    expect(p.transport.stderr).toContain('"msg":"spans flushed"');
  });

  it('passes server-filesystem through: its listing, a read, and a refused path as a failed call', async () => {
    const root = mkdtempSync(join(dir, 'fs-'));
    writeFileSync(join(root, 'note.txt'), 'proxied');
    const upstream = [process.execPath, FILESYSTEM, root];
    const plain = await direct(upstream);
    const expected = await plain.client.listTools();
    await plain.done();
    const p = await throughProxy(upstream, { flags, env });
    expect(await p.client.listTools()).toEqual(expected);
    const read = await p.client.callTool({
      name: 'read_text_file',
      arguments: { path: join(root, 'note.txt') },
    });
    expect(JSON.stringify(read.content)).toContain('proxied');
    const outside = await p.client.callTool({
      name: 'read_text_file',
      arguments: { path: '/etc/hostname' },
    });
    expect(outside.isError).toBe(true);
    expect(await p.done()).toBe(0);
    const calls = await callsOf('read_text_file', 2);
    expect(calls.map((c) => c.code).sort()).toEqual(['FAILED', null].sort());
  });
});
