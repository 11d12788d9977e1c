// The proxy's DNS-rebinding checks: Host names the proxy or an allowed name, Origin (when a browser sends one)
// is loopback or allowed; and the Host the upstream is sent.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createGuard } from './http-guard.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const local = new URL('http://127.0.0.1:3000/mcp');
const remote = new URL('https://mcp.example.com/mcp');
const guard = (o: { host?: string; hosts?: string[]; origins?: string[]; upstream?: URL } = {}) =>
  createGuard({
    host: o.host ?? '127.0.0.1',
    allowedHosts: o.hosts ?? [],
    allowedOrigins: o.origins ?? [],
    upstream: o.upstream ?? local,
  });

describe('the Host check', () => {
  it('serves loopback names and the address it listens on, port or none', () => {
    const g = guard({ host: '192.168.1.5' });
    for (const host of [
      '127.0.0.1:8931',
      'localhost',
      'LOCALHOST:1',
      '[::1]:8931',
      '192.168.1.5:80',
    ])
      expect(g.check(req({ host })), host).toBeUndefined();
  });

  it('refuses any other name, a missing Host, and a Host with a user or a path in it', () => {
    const g = guard();
    expect(g.check(req({ host: 'attacker.example:8931' }))).toEqual({
      check: 'host',
      message: 'Invalid Host: attacker.example',
    });
    expect(g.check(req({}))?.check).toBe('host');
    expect(g.check(req({ host: 'evil@127.0.0.1' }))?.check).toBe('host');
    expect(g.check(req({ host: '127.0.0.1/x' }))?.check).toBe('host');
    // Listening on every interface names no host of its own.
    expect(guard({ host: '0.0.0.0' }).check(req({ host: '0.0.0.0' }))?.check).toBe('host');
  });

  it('serves the names of --allowed-hosts, and any with *', () => {
    expect(guard({ hosts: ['MCP.test'] }).check(req({ host: 'mcp.test:9' }))).toBeUndefined();
    expect(guard({ hosts: ['::2'] }).check(req({ host: '[::2]:9' }))).toBeUndefined();
    expect(guard({ hosts: ['*'] }).check(req({ host: 'anything.example' }))).toBeUndefined();
  });
});

describe('the Origin check', () => {
  it('passes a request without Origin (not a browser) and loopback origins on any port', () => {
    const g = guard();
    expect(g.check(req({ host: 'localhost' }))).toBeUndefined();
    expect(g.check(req({ host: 'localhost', origin: 'http://localhost:6274' }))).toBeUndefined();
    expect(g.check(req({ host: 'localhost', origin: 'https://127.0.0.1' }))).toBeUndefined();
  });

  it('refuses other origins, the opaque null origin and unparsable ones', () => {
    const g = guard();
    expect(g.check(req({ host: 'localhost', origin: 'http://attacker.example' }))).toEqual({
      check: 'origin',
      message: 'Invalid Origin: attacker.example',
    });
    expect(g.check(req({ host: 'localhost', origin: 'null' }))?.check).toBe('origin');
    expect(g.check(req({ host: 'localhost', origin: 'not a url' }))?.check).toBe('origin');
  });

  it('allows host names, exact origins and scheme wildcards from --allowed-origins', () => {
    const g = guard({ origins: ['app.example', 'https://ui.example:8443', 'moz-extension://*'] });
    const ok = (origin: string) => g.check(req({ host: 'localhost', origin }));
    expect(ok('https://app.example')).toBeUndefined();
    expect(ok('https://ui.example:8443')).toBeUndefined();
    expect(ok('https://ui.example')?.check).toBe('origin');
    expect(ok('moz-extension://0a1b-2c3d')).toBeUndefined();
    expect(guard({ origins: ['*'] }).check(req({ host: 'localhost', origin: 'http://x.y' }))).toBe(
      undefined,
    );
  });
});

describe('the Host the upstream is sent', () => {
  it('is its own when the client used a local name, else the client’s for a local upstream', () => {
    const g = guard({ hosts: ['mcp.test'] });
    expect(g.upstreamHost(req({ host: '127.0.0.1:8931' }))).toBe('127.0.0.1:3000');
    expect(g.upstreamHost(req({ host: 'localhost:8931' }))).toBe('127.0.0.1:3000');
    expect(g.upstreamHost(req({ host: 'mcp.test:8931' }))).toBe('mcp.test:8931');
  });

  it('is always a remote upstream’s own (it routes by name)', () => {
    const g = guard({ hosts: ['mcp.test'], upstream: remote });
    expect(g.upstreamHost(req({ host: 'mcp.test:8931' }))).toBe('mcp.example.com');
    expect(g.upstreamHost(req({ host: 'localhost:8931' }))).toBe('mcp.example.com');
  });
});
