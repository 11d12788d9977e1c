// --token: ingest, API, the dashboard page and every other route refuse a missing or wrong token (401) and accept the right one;
// the token never appears in output; the default bind is loopback, and binding elsewhere without a token warns.
import { describe, expect, it, onTestFailed } from 'vitest';
import { runCli } from '../src/index.js';
import { jsonBody, startTestCollector } from './harness.js';

const TOKEN = 's3cret-token-value';

describe('auth', () => {
  it('refuses ingest and API without the right bearer token, accepts it with', async () => {
    // Two clean-clone runs (of about 17) timed out here, the second at 60 s "while stopping the collector"; a
    // checkpointer thread that exited early made close() wait forever (fixed, checkpointer.test.ts). If it
    // stops again, the failure says at which step.
    let step = 'starting the collector';
    onTestFailed(() => {
      process.stderr.write(`auth: stopped while ${step}\n`);
    });
    const c = await startTestCollector({ token: TOKEN });
    const post = (auth?: string) => {
      step = `posting a batch with ${auth === undefined ? 'no token' : 'a token'}`;
      return fetch(`${c.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(jsonBody(1, 2)),
      });
    };
    for (const auth of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
      const res = await post(auth);
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.text()).not.toContain(TOKEN);
    }
    expect((await post(`Bearer ${TOKEN}`)).status).toBe(200);
    for (const path of [
      '/api/tools',
      '/api/calls',
      '/api/flags',
      `/api/traces/${'1'.padStart(32, '0')}`,
      '/api/health',
      '/api/timeseries',
      '/api/search?q=x',
      '/api/tools/get_order',
      '/nope',
    ]) {
      step = `getting ${path}`;
      expect((await fetch(`${c.url}${path}`)).status, path).toBe(401);
    }
    step = 'getting the page and its script';
    // The dashboard page answers 401 too; its body is the app shell (no data), which asks for the token, and
    // the hashed script it loads holds no data either, so it needs none.
    const page = await fetch(`${c.url}/`);
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain('<div id="app">');
    expect(html).not.toContain('svc-');
    expect(html).not.toContain(TOKEN);
    const script = /src="\.(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${c.url}${script}`)).status).toBe(200);
    const authorized = await fetch(`${c.url}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(authorized.status).toBe(200);
    const ok = await fetch(`${c.url}/api/traces/${'1'.padStart(32, '0')}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.status).toBe(200);
    step = 'stopping the collector';
    await c.stop();
  }, 60_000);

  it('binds 127.0.0.1 by default and warns when binding elsewhere without a token', async () => {
    const c = await startTestCollector();
    expect(new URL(c.url).hostname).toBe('127.0.0.1');
    await c.stop();
    let err = '';
    let stop: (() => void) | undefined;
    let listening!: () => void;
    const started = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const running = runCli(
      ['serve', '--host', '0.0.0.0', '--port', '0', '--grpc-port', '0', '--db', ':memory:'],
      {
        out: (t) => {
          if (t.includes('listening on')) listening();
        },
        err: (t) => {
          err += t;
        },
        env: {},
        onSignal: (signal, handler) => {
          if (signal === 'SIGTERM') stop = handler;
        },
      },
    );
    await started;
    expect(err).toContain('without --token');
    stop?.();
    expect(await running).toBe(0);
  });

  it('takes the token from TOOLSCOPE_TOKEN and never prints it', async () => {
    let out = '';
    let stop: (() => void) | undefined;
    let listening!: () => void;
    const started = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const running = runCli(['serve', '--port', '0', '--grpc-port', '0', '--db', ':memory:'], {
      out: (t) => {
        out += t;
        if (t.includes('listening on')) listening();
      },
      err: (t) => {
        out += t;
      },
      env: { TOOLSCOPE_TOKEN: TOKEN },
      onSignal: (signal, handler) => {
        if (signal === 'SIGTERM') stop = handler;
      },
    });
    await started;
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
    expect((await fetch(`${url}/api/health`)).status).toBe(401);
    expect(
      (await fetch(`${url}/api/health`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
    stop?.();
    expect(await running).toBe(0);
    expect(out).not.toContain(TOKEN);
  });
});
