// The Claude Desktop case: clients that send no trace context (Claude Desktop, Cursor, Claude Code) behind the
// proxy repeat one failing call three times in one session, over stdio (server-filesystem from npm refusing a
// path) and over Streamable HTTP with one `mcp-session-id` (server-everything from npm refusing an argument). The
// proxy makes the session a conversation, so the collector flags each loop with the traces that prove it, and
// the SDK's validation message becomes issue paths on the tool page.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, reader } from './proxy-collector.js';
import {
  ChildTransport,
  EVERYTHING,
  FILESYSTEM,
  httpProxy,
  throughProxy,
  waitFor,
} from './proxy-process.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-loops-'));
const env = { TOOLSCOPE_HASH_KEY: 'proxy-loops-key' };
let collector: Collector;
let r: ReturnType<typeof reader>;
const children: ChildTransport[] = [];

type Flag = {
  kind: string;
  tool: string;
  conversationId?: string;
  traceId?: string;
  evidence: { traceIds?: string[] };
};

beforeAll(async () => {
  collector = await startCollector({
    db: join(dir, 'loops.db'),
    port: 0,
    hashKey: env.TOOLSCOPE_HASH_KEY,
  });
  r = reader(collector.url);
});
afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The flags of `tool`, once every kind in `kinds` is among them. */
async function flagsOf(tool: string, kinds: string[]): Promise<Flag[]> {
  for (;;) {
    const { flags } = await r.api<{ flags: Flag[] }>(`/api/flags?since=1h&tool=${tool}`);
    if (kinds.every((k) => flags.some((f) => f.kind === k))) return flags;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each loop flag of `kinds` is of the session's conversation and links the traces of its three calls. */
function expectLoops(flags: Flag[], kinds: string[], calls: Call[]) {
  const conversation = calls[0]?.conversationId;
  expect(conversation).toBeTruthy();
  expect(new Set(calls.map((c) => c.conversationId))).toEqual(new Set([conversation]));
  // Three calls, three traces: the proxy started one per call, as no trace context came.
  const traces = new Set(calls.map((c) => c.traceId));
  expect(traces.size).toBe(3);
  for (const kind of kinds) {
    const flag = flags.find((f) => f.kind === kind);
    expect(flag, kind).toMatchObject({ conversationId: conversation });
    expect(flag?.evidence.traceIds?.length, kind).toBeGreaterThan(0);
    for (const trace of flag?.evidence.traceIds ?? []) expect(traces.has(trace), kind).toBe(true);
  }
}

describe('an uninstrumented client behind the proxy, repeating a failing call', () => {
  it('over stdio: server-filesystem refusing a path three times is a loop of the session', async () => {
    const root = mkdtempSync(join(dir, 'fs-'));
    const p = await throughProxy([process.execPath, FILESYSTEM, root], {
      flags: ['--otlp-endpoint', collector.url],
      env,
      client: 'claude-desktop-like',
    });
    for (let i = 0; i < 3; i++) {
      const refused = await p.client.callTool({
        name: 'read_text_file',
        arguments: { path: '/etc/hostname' },
      });
      expect(refused.isError).toBe(true);
    }
    // The server's own input check: its message names the field, and the proxy keeps only its path.
    const invalid = await p.client.callTool({ name: 'read_text_file', arguments: { path: 5 } });
    expect(invalid.isError).toBe(true);
    expect(await p.done()).toBe(0);

    const calls = await r.callsOf('read_text_file', 4);
    const repeated = calls.filter((c) => c.code === 'FAILED');
    const kinds = ['identical_retry', 'retry_after_non_retryable'];
    expectLoops(await flagsOf('read_text_file', kinds), kinds, repeated);
    const bad = calls.find((c) => c.code === 'INVALID_INPUT');
    expect(bad?.issues).toEqual([
      {
        path: 'path',
        code: 'invalid_type',
        message: 'Invalid input: expected string, received number',
      },
    ]);
  });

  it('over HTTP, one mcp-session-id: server-everything refusing an argument three times is a loop', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createNetServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const everything = new ChildTransport(process.execPath, [EVERYTHING, 'streamableHttp'], {
      PORT: String(port),
    });
    children.push(everything);
    await waitFor(everything, /listening on port/);
    const { proxy, url } = httpProxy(collector.url, `http://127.0.0.1:${port}/mcp`, env);
    children.push(proxy);
    const client = new Client({ name: 'cursor-like', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(await url));
    await client.connect(transport);
    for (let i = 0; i < 3; i++) {
      const refused = await client.callTool({ name: 'get-sum', arguments: { a: 'two', b: 2 } });
      expect(refused.isError).toBe(true);
    }
    const session = transport.sessionId;
    await transport.terminateSession();
    await client.close();
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toBe(0);

    const calls = await r.callsOf('get-sum', 3);
    expect(calls.map((c) => c.code)).toEqual(['INVALID_INPUT', 'INVALID_INPUT', 'INVALID_INPUT']);
    const kinds = ['identical_retry', 'unrepaired_invalid_input'];
    expectLoops(await flagsOf('get-sum', kinds), kinds, calls);
    // One agent repeating a typo is a loop, not drift: no input_drift for it (docs/detectors.md).
    const { flags: drift } = await r.api<{ flags: Flag[] }>('/api/flags?since=1h&kind=input_drift');
    expect(drift).toEqual([]);
    // The session is the conversation's scope, not its id: that stays the server's.
    expect(calls[0]?.conversationId).not.toBe(session);
    // The tool page names the field the agent got wrong.
    const page = await r.api<{ failingPaths: { code: string; path: string; count: number }[] }>(
      '/api/tools/get-sum?since=1h',
    );
    expect(page.failingPaths).toEqual([
      expect.objectContaining({ path: 'a', code: 'INVALID_INPUT', count: 3 }),
    ]);
  });
});
