// The stdio proxy at the end of a session, and calls whatever their spelling: calls piped in and still in flight
// when the client closes stdin are all answered and recorded (within the drain timeout, past which the proxy
// says which it cut); a signal while the last spans are flushed does not lose them (only a second one stops the
// wait); and `tools/call` spelled with JSON escapes, which the server executes, is recorded like any other.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './processes.js';
import { type Call, reader } from './proxy-collector.js';
import { logLines } from './proxy-hostile.js';
import { builtProxy } from './proxy-process.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-shutdown-'));
const BLOCKING = `${ROOT}test/e2e/proxy-blocking-upstream.mjs`;
let collector: Collector;
const children: ChildProcess[] = [];

beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'shutdown.db'), port: 0, hashKey: 'k' });
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const opening =
  line({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'pipe', version: '1' },
    },
  }) + line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const call = (id: number, name: string, args: unknown) =>
  line({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/**
 * The proxy as installed (built.ts) in front of the blocking server, as a client that pipes lines in would run
 * it: one process, as it was under `node --import tsx`, which took 1.3 s of CPU a start against 0.5 s.
 */
function pipeProxy(flags: string[] = [], otlp = collector.url) {
  const child = spawn(
    process.execPath,
    builtProxy(['--otlp-endpoint', otlp, ...flags, '--', process.execPath, BLOCKING]),
    { cwd: ROOT, env: { ...process.env, TOOLSCOPE_HASH_KEY: 'k' }, stdio: 'pipe' },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))),
  );
  return {
    child,
    exited,
    stderr: () => stderr,
    /** The ids of the answers written to the client. */
    answered: () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => (JSON.parse(l) as { id: number }).id),
    /** Resolves when the proxy's stderr matches `re`. */
    saying: (re: RegExp) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (re.test(stderr)) resolve();
          else setTimeout(look, 20);
        };
        look();
      }),
  };
}

describe('the stdio proxy when the client closes stdin', () => {
  it('answers every call still in flight, records each, and exits with the server', async () => {
    const p = pipeProxy();
    // Five calls the server runs one after another (about 3 s), all sent before stdin closes.
    p.child.stdin.end(
      opening + [1, 2, 3, 4, 5].map((id) => call(id, 'block', { ms: 600 })).join(''),
    );
    expect(await p.exited).toBe(0);
    expect(p.answered().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const log = logLines(p.stderr());
    expect(log.find((l) => l.msg === 'upstream exited')).toMatchObject({ callsLeftInFlight: 0 });
    const calls = await reader(collector.url).callsOf('block', 5);
    expect(calls.map((c: Call) => c.code)).toEqual([null, null, null, null, null]);
  });

  it('stops the server at --drain-timeout-ms and names the calls it cut', async () => {
    const p = pipeProxy(['--drain-timeout-ms', '300']);
    p.child.stdin.end(opening + [11, 12, 13].map((id) => call(id, 'block', { ms: 1000 })).join(''));
    // The server dies of the SIGTERM (the SDK's stdio server does not handle it).
    expect(await p.exited).toBe(143);
    const log = logLines(p.stderr());
    const cut = log.find(
      (l) => l.msg === 'calls still in flight at the drain timeout; stopping the upstream',
    );
    expect(cut).toMatchObject({ drainTimeoutMs: 300 });
    const named = (cut?.calls ?? []) as { tool: string }[];
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((c) => c.tool === 'block')).toBe(true);
    expect(cut?.callsCut).toBe(named.length);
    expect(log.find((l) => l.msg === 'upstream exited')).toMatchObject({
      callsLeftInFlight: cut?.callsCut,
    });
  });

  it('goes on flushing its spans through a first signal: none is lost', async () => {
    // A collector that holds each export until the test lets it answer.
    const held: ServerResponse[] = [];
    let release = false;
    const slow: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/x-protobuf' });
        if (release) res.end();
        else held.push(res);
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const p = pipeProxy([], `http://127.0.0.1:${(slow.address() as AddressInfo).port}`);
    p.child.stdin.end(opening + call(21, 'probe', {}) + call(22, 'probe', {}));
    // The server is gone and the flush waits on the collector: the client's signal comes now.
    await p.saying(/"msg":"upstream exited"/);
    while (held.length === 0) await new Promise((r) => setTimeout(r, 20));
    p.child.kill('SIGTERM');
    await p.saying(/flushing spans before exiting/);
    release = true;
    for (const res of held.splice(0)) res.end();
    expect(await p.exited).toBe(0);
    slow.close();
    const log = logLines(p.stderr());
    expect(log.some((l) => l.msg === 'stopped before the spans were flushed')).toBe(false);
    // Two calls and two contracts, all acknowledged.
    expect(log.find((l) => l.msg === 'spans flushed')).toMatchObject({ failed: 0, dropped: 0 });
    expect(log.find((l) => l.msg === 'spans flushed')?.exported).toBeGreaterThanOrEqual(2);
  });
});

describe('a tools/call spelled with JSON escapes', () => {
  it('is recorded: the server executes it, so the proxy reads it after decoding', async () => {
    const p = pipeProxy();
    const escaped = [
      '{"jsonrpc":"2.0","id":31,"method":"tools\\/call","params":{"name":"probe","arguments":{}}}\n',
      '{"jsonrpc":"2.0","id":32,"method":"\\u0074ools/call","params":{"name":"probe","arguments":{}}}\n',
    ];
    p.child.stdin.end(opening + escaped.join(''));
    expect(await p.exited).toBe(0);
    // The server ran both.
    expect(p.answered().sort()).toEqual([0, 31, 32]);
    expect(logLines(p.stderr()).find((l) => l.msg === 'session traffic')).toMatchObject({
      calls: 2,
    });
    const calls = await reader(collector.url).callsOf('probe', 2);
    expect(calls.filter((c) => c.code === null).length).toBeGreaterThanOrEqual(2);
  });
});
