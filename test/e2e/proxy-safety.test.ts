// The proxy is safe by construction: a collector that accepts connections and never answers costs the traffic
// nothing and the proxy still exits within its flush deadline; malformed lines from the client are forwarded
// unchanged and counted; SIGTERM stops the upstream and the proxy exits with its code after flushing.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reader } from './proxy-collector.js';
import { LIAR, throughProxy } from './proxy-process.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-safety-'));
const upstream = [process.execPath, LIAR];
const env = { TOOLSCOPE_HASH_KEY: 'proxy-safety-key' };
let collector: Collector;
let blackHole: Server;
const held: Socket[] = [];

beforeAll(async () => {
  collector = await startCollector({
    db: join(dir, 'safety.db'),
    port: 0,
    hashKey: env.TOOLSCOPE_HASH_KEY,
  });
  // Takes every connection and never answers: a collector that hangs.
  blackHole = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const s of held) s.destroy();
  blackHole.close();
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('toolscope-proxy when things go wrong', () => {
  it('answers every call while the collector hangs, then exits within its flush deadline', async () => {
    const address = blackHole.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const p = await throughProxy(upstream, {
      flags: ['--otlp-endpoint', `http://127.0.0.1:${port}`],
      env,
    });
    await p.client.listTools();
    for (let i = 0; i < 30; i++) {
      const r = await p.client.callTool({ name: 'show_meta', arguments: { i } });
      expect(r.isError).toBeUndefined();
    }
    expect(await p.done()).toBe(0);
    const log = lines(p.transport.stderr);
    const flushed = log.find((l) => l.msg === 'spans flushed');
    // Nothing reached the hanging collector; what was held is counted, not waited for beyond the deadline.
    expect(flushed).toMatchObject({ exported: 0 });
    expect(log.some((l) => l.msg === 'spans not exported before the flush deadline')).toBe(true);
  });

  it('forwards malformed client lines unchanged and counts them', async () => {
    const p = await throughProxy(upstream, { flags: ['--otlp-endpoint', collector.url], env });
    p.transport.child.stdin?.write('this is not json\n{"half":\n');
    const r = await p.client.callTool({ name: 'show_meta', arguments: {} });
    expect(r.isError).toBeUndefined();
    expect(await p.done()).toBe(0);
    const log = lines(p.transport.stderr);
    expect(log.find((l) => l.msg === 'session traffic')).toMatchObject({
      malformedFromClient: 2,
      calls: 1,
    });
    expect(log.filter((l) => String(l.msg).includes('not JSON-RPC'))).toHaveLength(1);
  });

  it('stops the upstream on SIGTERM and exits with its code, the calls before it flushed', async () => {
    const p = await throughProxy(upstream, { flags: ['--otlp-endpoint', collector.url], env });
    await p.client.listTools();
    await p.client.callTool({ name: 'show_meta', arguments: { box: 'sigterm' } });
    p.transport.child.kill('SIGTERM');
    // The SDK's stdio server does not handle SIGTERM: it dies of it, and the proxy says so in its code.
    expect(await p.transport.exited).toBe(143);
    expect(lines(p.transport.stderr).find((l) => l.msg === 'spans flushed')).toMatchObject({
      // Three contracts and one call.
      exported: 4,
      failed: 0,
      dropped: 0,
    });
    const calls = await reader(collector.url).callsOf('show_meta', 2);
    expect(calls.length).toBeGreaterThanOrEqual(2);
  });
});
