// The `toolscope` CLI: help, clear errors for bad flags (exit 2), `serve` as a real process that shuts down
// cleanly on SIGTERM after committing what it acknowledged, and `proxy` delegating to the proxy package.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openStorage, runCli } from '../src/index.js';
import { captureIo, jsonBody } from './harness.js';

describe('toolscope CLI', () => {
  it('prints usage and exits 2 without a command, 0 for --help', async () => {
    const io = captureIo();
    expect(await runCli([], io)).toBe(2);
    expect(io.stdout).toContain('Usage: toolscope <command>');
    const help = captureIo();
    expect(await runCli(['serve', '--help'], help)).toBe(0);
    for (const flag of ['--max-body-mb', '--max-inflight-mb', '--max-pending-spans'])
      expect(help.stdout).toContain(flag);
    const report = captureIo();
    expect(await runCli(['report', '--help'], report)).toBe(0);
    for (const flag of [
      '--baseline FILE',
      '--max-error-rate-increase R',
      '--max-p95-increase R',
      '--max-result-tokens-increase R',
      '--fail-on-new KIND',
      '--fail-on-contract-change',
      'sarif',
    ])
      expect(report.stdout).toContain(flag);
  });

  it.each([
    [['nope'], 'unknown command "nope"'],
    [['serve', '--port', 'abc'], '--port:'],
    [['serve', '--port', '70000'], '--port:'],
    [['serve', '--retention', 'forever'], '--retention: expected a duration'],
    [['serve', '--frobnicate'], "Unknown option '--frobnicate'"],
    [['serve', '--token', 'short'], '--token: use at least 8 characters'],
    [['serve', '--max-inflight-mb', '0'], '--max-inflight-mb:'],
    [['serve', '--max-pending-spans', '1.5'], '--max-pending-spans:'],
  ])('exits 2 with a clear message for %j', async (argv, message) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.stderr).toContain(message);
  });

  it('serve runs as a process, stores what it acknowledged, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-cli-'));
    const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
    const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
    const child = spawn(
      tsx,
      [
        '--conditions=@toolscope/source',
        main,
        'serve',
        '--db',
        join(dir, 'x.db'),
        '--port',
        '0',
        '--grpc-port',
        '0',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`serve exited early: ${out}`)));
    });
    const res = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jsonBody(77, 3)),
    });
    expect(res.status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(out).toContain('SIGTERM: flushing acknowledged spans and closing');
    // The data is there for the next process.
    const storage = await openStorage(join(dir, 'x.db'));
    expect(await storage.trace((77).toString(16).padStart(32, '0'))).toHaveLength(3);
    await storage.close();
  });

  it('proxy runs a server behind it: its bytes forwarded as they are, and its exit code', async () => {
    const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
    const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
    // An echo "server" that exits 3 at the end of its input; nothing listens on the OTLP port.
    const server =
      "process.stdin.on('data', (d) => process.stdout.write(d)); process.stdin.on('end', () => process.exit(3));";
    const child = spawn(
      tsx,
      [
        '--conditions=@toolscope/source',
        main,
        'proxy',
        '--otlp-endpoint',
        'http://127.0.0.1:9',
        '--',
        process.execPath,
        '-e',
        server,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TOOLSCOPE_HASH_KEY: 'cli-test' } },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const sent = 'not json at all\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    child.stdin.end(sent);
    expect(await exit).toBe(3);
    expect(out).toBe(sent);
  });
});
