// The service name of a server that never names itself, read from the command line or the upstream's URL.
import { describe, expect, it } from 'vitest';
import { serviceOfCommand, serviceOfUrl } from './fallback-service.js';

describe('the fallback service name', () => {
  it('is the package or script a launcher runs, else the command itself', () => {
    expect(
      serviceOfCommand('npx', ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/home']),
    ).toBe('@modelcontextprotocol/server-filesystem');
    expect(serviceOfCommand('uv', ['run', 'weather_server.py'])).toBe('weather_server.py');
    expect(serviceOfCommand('/usr/bin/node', ['/srv/mcp/dist/orders.js', '--stdio'])).toBe(
      'orders.js',
    );
    expect(serviceOfCommand('uvx', ['mcp-server-fetch@1.2'])).toBe('mcp-server-fetch');
    expect(serviceOfCommand('python3.12', ['-m', 'server'])).toBe('server');
    expect(serviceOfCommand('/opt/bin/github-mcp-server', ['stdio'])).toBe('github-mcp-server');
    expect(serviceOfCommand('npx', [])).toBe('npx');
  });

  it('is the host and path of an upstream, without user or query', () => {
    expect(serviceOfUrl('https://user:pw@mcp.example.com/mcp?key=1')).toBe('mcp.example.com/mcp');
    expect(serviceOfUrl('http://127.0.0.1:8931/')).toBe('127.0.0.1:8931');
  });
});
