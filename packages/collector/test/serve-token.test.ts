// `serve` takes its token from a file or the environment, so it need not be on a command line that every local
// user can read (issue 48), and refuses to start published beyond loopback without one (docker-compose.yml).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../src/cli/serve.js';
import { publishProblem, resolveToken } from '../src/cli/serve-token.js';
import { captureIo } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};

describe('the token of serve', () => {
  it('is read from --token-file or TOOLSCOPE_TOKEN_FILE without its trailing newline', () => {
    const path = file('token', 'file-token-123456\n');
    expect(resolveToken({ 'token-file': path }, {})).toEqual({
      ok: true,
      token: 'file-token-123456',
    });
    expect(resolveToken({}, { TOOLSCOPE_TOKEN_FILE: path })).toEqual({
      ok: true,
      token: 'file-token-123456',
    });
    expect(resolveToken({}, { TOOLSCOPE_TOKEN: 'env-token-123456' })).toEqual({
      ok: true,
      token: 'env-token-123456',
    });
    // An empty variable (compose's `${TOOLSCOPE_TOKEN:-}`) is no token.
    expect(resolveToken({}, { TOOLSCOPE_TOKEN: '' })).toEqual({ ok: true, token: undefined });
  });

  it('refuses two sources at once, an empty file and an unreadable one, without showing the file', () => {
    const path = file('token2', 'file-token-123456');
    const both = resolveToken({ token: 'x'.repeat(12) }, { TOOLSCOPE_TOKEN_FILE: path });
    expect(both).toEqual({ ok: false, message: expect.stringContaining('one way only') });
    const empty = resolveToken({ 'token-file': file('empty', ' \n') }, {});
    expect(empty).toEqual({ ok: false, message: expect.stringContaining('is empty') });
    const missing = resolveToken({ 'token-file': join(dir, 'nope') }, {});
    expect(missing).toEqual({ ok: false, message: expect.stringContaining('(ENOENT)') });
    if (process.getuid?.() !== 0) {
      const locked = file('locked', 'file-token-123456');
      chmodSync(locked, 0o000);
      expect(resolveToken({ 'token-file': locked }, {})).toEqual({
        ok: false,
        message: expect.stringContaining('(EACCES)'),
      });
    }
  });

  it('guards every route when given as a file, and never prints it', async () => {
    const token = 'file-token-abcdef-123';
    const io = captureIo({});
    let stop: (() => void) | undefined;
    io.onSignal = (signal, handler) => {
      if (signal === 'SIGTERM') stop = handler;
    };
    const db = join(dir, 'serve.db');
    const running = serve(
      [
        ...['--db', db, '--port', '0', '--grpc-port', '0', '--memory-limit-mib', '0'],
        ...['--token-file', file('t', `${token}\n`)],
      ],
      io,
    );
    for (;;) {
      if (/listening on/.test(io.stdout)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = /listening on (\S+)/.exec(io.stdout)?.[1] as string;
    expect((await fetch(`${url}/api/tools`)).status).toBe(401);
    const authorized = { headers: { authorization: `Bearer ${token}` } };
    expect((await fetch(`${url}/api/tools`, authorized)).status).toBe(200);
    stop?.();
    expect(await running).toBe(0);
    expect(io.stdout + io.stderr).not.toContain(token);
  });

  it('is required when the ports are published beyond loopback', async () => {
    expect(publishProblem({ TOOLSCOPE_PUBLISH_ADDRESS: '127.0.0.1' }, undefined)).toBeUndefined();
    expect(
      publishProblem({ TOOLSCOPE_PUBLISH_ADDRESS: '0.0.0.0' }, 'a-token-1234'),
    ).toBeUndefined();
    expect(publishProblem({}, undefined)).toBeUndefined();
    const io = captureIo({ TOOLSCOPE_PUBLISH_ADDRESS: '0.0.0.0' });
    expect(await serve(['--db', join(dir, 'p.db'), '--port', '0'], io)).toBe(2);
    expect(io.stderr).toContain(
      'TOOLSCOPE_PUBLISH_ADDRESS=0.0.0.0 publishes the collector beyond loopback',
    );
  });
});
