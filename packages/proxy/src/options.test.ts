// The command line's bounds and checks: their defaults, the lists as given, and each mode's own flags refused in
// the other.
import { describe, expect, it } from 'vitest';
import { DRAIN_TIMEOUT_MS, HTTP_DEFAULTS, parseProxyArgs } from './options.js';

describe('parseProxyArgs', () => {
  it('gives HTTP mode its bounds by default, and takes lists and numbers from the flags', () => {
    const plain = parseProxyArgs(['--upstream', 'http://127.0.0.1:3000/mcp', '--port', '0']);
    expect(plain).toMatchObject({
      ok: true,
      options: { ...HTTP_DEFAULTS, allowedHosts: [], allowedOrigins: [] },
    });
    const set = parseProxyArgs([
      '--upstream',
      'http://127.0.0.1:3000/mcp',
      '--port',
      '0',
      '--allowed-hosts',
      ' mcp.test, ,[::2] ',
      '--allowed-origins',
      'https://ui.example:8443,moz-extension://*',
      '--max-body-mb',
      '2',
      '--idle-timeout-ms',
      '500',
    ]);
    expect(set).toMatchObject({
      ok: true,
      options: {
        allowedHosts: ['mcp.test', '[::2]'],
        allowedOrigins: ['https://ui.example:8443', 'moz-extension://*'],
        maxBodyMb: 2,
        idleTimeoutMs: 500,
      },
    });
  });

  it('gives stdio mode its drain timeout, and refuses the other mode’s flags', () => {
    expect(parseProxyArgs(['--', 'server'])).toMatchObject({
      ok: true,
      options: { drainTimeoutMs: DRAIN_TIMEOUT_MS },
    });
    expect(parseProxyArgs(['--max-sessions', '5', '--', 'server'])).toMatchObject({
      ok: false,
      error: '--max-sessions applies to HTTP mode only',
    });
    expect(
      parseProxyArgs(['--upstream', 'http://h/mcp', '--port', '1', '--drain-timeout-ms', '5']),
    ).toMatchObject({ ok: false, error: '--drain-timeout-ms applies to stdio mode only' });
    expect(
      parseProxyArgs(['--upstream', 'http://h/mcp', '--port', '1', '--exit-grace-ms', '5']),
    ).toMatchObject({ ok: false, error: '--exit-grace-ms applies to stdio mode only' });
    expect(parseProxyArgs(['--exit-grace-ms', '9000', '--', 'srv'])).toMatchObject({
      ok: true,
      options: { exitGraceMs: 9000 },
    });
    expect(
      parseProxyArgs(['--upstream', 'http://h/mcp', '--port', '1', '--max-body-mb', '0']),
    ).toMatchObject({ ok: false, error: expect.stringContaining('max-body-mb') });
  });
});
