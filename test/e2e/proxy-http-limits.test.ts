// The HTTP proxy's connection and request limits, against a proxy process: idle sockets are capped and timed
// out (the process's descriptors stay bounded, and an ordinary request still gets through), a body over the
// limit is answered 413 (not a reset), and one request that fails upstream ends only its own calls, not the
// other calls in flight in its session.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Call, reader } from './proxy-collector.js';
import {
  descriptorsOf,
  MCP_HEADERS,
  send,
  startHttpProxy,
  stopProxy,
  toolCall,
} from './proxy-hostile.js';
import type { ChildTransport } from './proxy-process.js';

const MIB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-limits-'));
let collector: Collector;
let upstream: Server;
let upstreamUrl: string;
const proxies: ChildTransport[] = [];
// The `slow` calls the upstream holds, each answered when the test says so.
const held: { id: number; answer: () => void }[] = [];
let heldSignal: () => void = () => {};

const bodyOf = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString()));
  });

beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'limits.db'), port: 0, hashKey: 'k' });
  upstream = createServer(async (req, res) => {
    const text = await bodyOf(req);
    const mode = req.headers['x-mode'];
    if (mode === 'reset') {
      // The upstream drops this one request's connection: that request fails, nothing else.
      req.socket.destroy();
      return;
    }
    let message: { id?: number } = {};
    try {
      message = JSON.parse(text) as { id?: number };
    } catch {
      // Not JSON (the 413 test's spaces, had they come through): answered all the same.
    }
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { content: [{ type: 'text', text: 'done' }] },
        }),
      );
    };
    if (mode === 'slow') {
      held.push({ id: message.id ?? -1, answer });
      heldSignal();
      return;
    }
    answer();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  for (const p of proxies) p.child.kill('SIGKILL');
  upstream.close();
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

async function proxy(flags: string[] = []) {
  const started = startHttpProxy(upstreamUrl, ['--otlp-endpoint', collector.url, ...flags]);
  proxies.push(started.proxy);
  const url = await started.url;
  return { ...started, url, port: Number(new URL(url).port) };
}

describe('the HTTP proxy’s connection and request limits', () => {
  it('caps idle connections, closes them once idle, and still serves an ordinary request', async () => {
    const p = await proxy(['--max-connections', '50', '--idle-timeout-ms', '1000']);
    await send(p.url, { headers: MCP_HEADERS, body: toolCall(1, 'warm') });
    const before = descriptorsOf(p.pid);
    // 300 connections that never send a byte: descriptors a flood would otherwise pile up.
    const sockets: Socket[] = [];
    const closes: Promise<void>[] = [];
    await Promise.all(
      Array.from(
        { length: 300 },
        () =>
          new Promise<void>((resolve) => {
            const s = connect(p.port, '127.0.0.1');
            sockets.push(s);
            s.on('error', () => {});
            // What the proxy says before it closes (408) is read, so the close is seen.
            s.resume();
            closes.push(new Promise<void>((closed) => s.once('close', () => closed())));
            s.once('connect', () => resolve());
            s.once('close', () => resolve());
          }),
      ),
    );
    // The process holds at most the cap (and its own few), whatever was opened.
    expect(descriptorsOf(p.pid) - before).toBeLessThanOrEqual(52);
    // An ordinary client is served meanwhile: the longest idle connection made room for it.
    const ordinary = await send(p.url, { headers: MCP_HEADERS, body: toolCall(2, 'ordinary') });
    expect(ordinary.status).toBe(200);
    // And every idle one is closed by the proxy within its idle timeout.
    await Promise.all(closes);
    expect(sockets.every((s) => s.destroyed)).toBe(true);
    await stopProxy(p.proxy);
  });

  it('answers 413 to a body over --max-body-mb, declared or streamed, and keeps serving', async () => {
    const p = await proxy();
    const big = Buffer.alloc(17 * MIB, 0x20);
    const declared = await send(p.url, { headers: MCP_HEADERS, body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: { code: 'BODY_TOO_LARGE' } });
    // Without a length: the proxy finds out as it reads, and still answers.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(
        p.url,
        { method: 'POST', headers: { ...MCP_HEADERS, 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 17; i++) req.write(big.subarray(i * MIB, (i + 1) * MIB));
      req.end();
    });
    expect(streamed).toBe(413);
    expect((await send(p.url, { headers: MCP_HEADERS, body: toolCall(3, 'after') })).status).toBe(
      200,
    );
    await stopProxy(p.proxy);
  });

  it('ends only the failed request’s call: another call of the session in flight is answered and recorded', async () => {
    const p = await proxy();
    const session = { ...MCP_HEADERS, 'mcp-session-id': 'one-session' };
    const waiting = new Promise<void>((resolve) => {
      heldSignal = resolve;
    });
    const slow = send(p.url, {
      headers: { ...session, 'x-mode': 'slow' },
      body: toolCall(1, 'slow_tool'),
    });
    await waiting;
    const failed = await send(p.url, {
      headers: { ...session, 'x-mode': 'reset' },
      body: toolCall(2, 'doomed_tool'),
    });
    expect(failed.status).toBe(502);
    for (const h of held.splice(0)) h.answer();
    expect((await slow).status).toBe(200);
    await stopProxy(p.proxy);

    const { callsOf, spanOf } = reader(collector.url);
    const [doomed] = await callsOf('doomed_tool', 1);
    const [survivor] = await callsOf('slow_tool', 1);
    expect((await spanOf(doomed as Call)).attributes['error.type']).toBe('upstream_exited');
    // Answered by the upstream after the other request failed: a success, not a call cut short.
    expect(survivor?.code).toBeNull();
  });
});
