// The HTTP proxy's memory stays bounded, measured from outside its process (/proc/<pid>/status) while it is
// flooded: an event-stream event that never ends, a client that never reads, many large bodies at once, and a
// flood of made-up session ids. Each flood runs only until growth would have shown (a few hundred MiB, or until
// the upstream is held back), so each test takes seconds.
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MCP_HEADERS,
  memoryOf,
  send,
  settled,
  startHttpProxy,
  stopProxy,
  toolCall,
} from './proxy-hostile.js';
import type { ChildTransport } from './proxy-process.js';

const MIB = 1024 * 1024;
let upstream: Server;
let upstreamUrl: string;
/** Bytes the upstream wrote, per mode. */
const written = { endless: 0, firehose: 0 };
const proxies: ChildTransport[] = [];

/** Writes `piece` until `limit` bytes went out or the client left, waiting whenever the socket is full. */
async function pour(
  res: import('node:http').ServerResponse,
  piece: Buffer,
  limit: number,
  count: (n: number) => void,
) {
  let sent = 0;
  while (sent < limit && !res.destroyed) {
    sent += piece.length;
    count(piece.length);
    if (!res.write(piece))
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
  }
  res.end();
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const mode = req.headers['x-mode'];
    const limit = Number(req.headers['x-limit'] ?? 0);
    if (mode === 'endless') {
      // One event whose data lines never end with the blank line that would close it.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const line = Buffer.from(`data: ${'x'.repeat(64 * 1024)}\n`);
      void pour(res, line, limit, (n) => {
        written.endless += n;
      });
      req.resume();
      return;
    }
    if (mode === 'firehose') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = Buffer.from(
        `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'y'.repeat(64 * 1024)}"}}\n\n`,
      );
      void pour(res, event, limit, (n) => {
        written.firehose += n;
      });
      req.resume();
      return;
    }
    // Accepted and never answered (a notification's answer): a call in it stays in flight.
    req.resume();
    req.on('end', () => {
      res.writeHead(202);
      res.end();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  for (const p of proxies) p.child.kill('SIGKILL');
  upstream.close();
});

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;
/** The figure docs/reliability.md quotes: the peak RSS against the RSS before the flood. */
const report = (what: string, beforeMb: number, peakMb: number) =>
  process.stdout.write(
    `\nproxy memory, ${what}: peak RSS ${peakMb.toFixed(0)} MiB, ${(peakMb - beforeMb).toFixed(0)} MiB over ${beforeMb.toFixed(0)} MiB before\n`,
  );

async function proxy(flags: string[] = []) {
  const started = startHttpProxy(upstreamUrl, ['--otlp-endpoint', 'http://127.0.0.1:9', ...flags]);
  proxies.push(started.proxy);
  const url = await started.url;
  // Warmed by one ordinary request: what the flood adds is measured from here.
  await send(url, { headers: MCP_HEADERS, body: toolCall(0, 'warm') });
  return { ...started, url, before: memoryOf(started.pid).rssMb };
}

describe('the HTTP proxy’s memory under a flood', () => {
  it('stays bounded while an event that never ends streams through it', async () => {
    const p = await proxy();
    const limit = 160 * MIB;
    const received = await new Promise<number>((resolve, reject) => {
      const req = request(
        p.url,
        { method: 'GET', headers: { 'x-mode': 'endless', 'x-limit': String(limit) } },
        (res) => {
          let n = 0;
          res.on('data', (c: Buffer) => {
            n += c.length;
          });
          res.on('end', () => resolve(n));
        },
      );
      req.on('error', reject);
      req.end();
    });
    // Every byte reached the client; the proxy held at most one message's worth of it.
    expect(received).toBe(written.endless);
    expect(written.endless).toBeGreaterThanOrEqual(limit);
    const { peakMb } = memoryOf(p.pid);
    report(`endless event: ${mib(received)} streamed`, p.before, peakMb);
    // Unbounded, it grew by more than the stream (213 MiB for these 160).
    expect(peakMb - p.before, `peak ${peakMb} MiB from ${p.before}`).toBeLessThan(120);
    const log = await stopProxy(p.proxy);
    expect(
      log.find((l) => l.msg === 'an answer was forwarded without being observed'),
    ).toBeTruthy();
  });

  it('holds the upstream back for a client that does not read, instead of buffering its answer', async () => {
    const p = await proxy();
    const limit = 256 * MIB;
    const req = request(
      p.url,
      { method: 'GET', headers: { 'x-mode': 'firehose', 'x-limit': String(limit) } },
      (res) => res.pause(),
    );
    req.on('error', () => {});
    req.end();
    // Until the upstream stops getting rid of bytes (held back) or has sent them all (nothing held it).
    const sent = await settled(() => written.firehose, 1000);
    const { peakMb } = memoryOf(p.pid);
    report(`slow reader: the upstream wrote ${mib(sent)} of ${mib(limit)}`, p.before, peakMb);
    req.destroy();
    expect(sent, 'bytes the upstream could write').toBeLessThan(32 * MIB);
    expect(peakMb - p.before, `peak ${peakMb} MiB from ${p.before}`).toBeLessThan(48);
    await stopProxy(p.proxy);
  });

  it('holds no more than --max-buffered-mb of bodies at once, and answers the rest 503', async () => {
    const p = await proxy(['--max-body-mb', '8', '--max-buffered-mb', '32']);
    const body = Buffer.from(toolCall(1, 'big', { blob: 'z'.repeat(7 * MIB) }));
    // Keep-alive: a refused body is read to its end and thrown away on a connection that stays open.
    const agent = new Agent({ keepAlive: true, maxSockets: 24 });
    // Every body is sent but its last byte, so the proxy holds them all at once before any is forwarded.
    const requests = Array.from({ length: 24 }, () => {
      let finish = () => {};
      const answered = new Promise<number>((resolve, reject) => {
        const req = request(
          p.url,
          {
            method: 'POST',
            agent,
            headers: { ...MCP_HEADERS, 'content-length': String(body.length) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.write(body.subarray(0, body.length - 1));
        finish = () => req.end(body.subarray(body.length - 1));
      });
      return { answered, finish: () => finish() };
    });
    await settled(() => Math.round(memoryOf(p.pid).rssMb), 500);
    for (const r of requests) r.finish();
    const statuses = await Promise.all(requests.map((r) => r.answered));
    const { peakMb } = memoryOf(p.pid);
    const accepted = statuses.filter((s) => s === 202).length;
    report(`24 bodies of 7 MiB: ${accepted} forwarded, the rest 503`, p.before, peakMb);
    expect(new Set(statuses)).toEqual(new Set([202, 503]));
    expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(4);
    expect(peakMb - p.before, `peak ${peakMb} MiB from ${p.before}`).toBeLessThan(180);
    const log = await stopProxy(p.proxy);
    expect(log.find((l) => l.msg === 'http traffic')).toMatchObject({
      busy: statuses.filter((s) => s === 503).length,
    });
  });

  it('follows at most --max-sessions sessions, whatever session ids clients make up', async () => {
    const p = await proxy(['--max-sessions', '100']);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    // Each made-up session carries a long id (15 kB, near Node's header limit): 2,800 sessions then show what
    // 300,000 short ones would, in seconds.
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    let next = 0;
    const flood = (until: number) =>
      Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < until) {
            const id = `${next++}-`.padEnd(15_000, 's');
            const answer = await send(p.url, {
              headers: { ...MCP_HEADERS, 'mcp-session-id': id },
              body: note,
              agent,
            });
            expect(answer.status).toBe(202);
          }
        }),
      );
    // Past the bound already: from here on, a session that comes is one that goes. The first 2,500 more let the
    // heap grow to where V8 keeps it (their ids are garbage it has not collected yet); the next 2,500
    // must then add nothing that stays. Unbounded (--max-sessions 100000), the second 2,500 added 43 MiB.
    await flood(300);
    const start = memoryOf(p.pid).rssMb;
    await flood(2800);
    const settledPeak = memoryOf(p.pid).peakMb;
    await flood(5300);
    agent.destroy();
    const { peakMb } = memoryOf(p.pid);
    report(
      '2,500 sessions more (15 kB ids) past --max-sessions 100, after 2,500 more',
      settledPeak,
      peakMb,
    );
    const log = await stopProxy(p.proxy);
    expect(log.find((l) => l.msg === 'http traffic')).toMatchObject({
      sessions: 100,
      sessionsEvicted: 5200,
    });
    expect(
      peakMb - settledPeak,
      `peak ${peakMb} MiB from ${settledPeak} (${start} at the start)`,
    ).toBeLessThan(16);
    // 5,300 requests: seconds on a quiet machine, more under load; the flood ends when they are answered.
  }, 60_000);
});
