// What the hostile-input tests of the proxy share: an HTTP proxy process started with flags of the test's own,
// its memory and file descriptors read from outside (/proc/<pid>), raw HTTP requests with any Host header (which
// fetch will not send), and a way to wait on progress instead of a clock.
import { readdirSync, readFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { ChildTransport, PROXY_CLI, tsNode, waitFor } from './proxy-process.js';

/** `toolscope-proxy --upstream URL --port 0 …flags`; `url` is where it listens. */
export function startHttpProxy(
  upstream: string,
  flags: string[],
  env: Record<string, string> = {},
) {
  const proxy = new ChildTransport(
    process.execPath,
    tsNode(PROXY_CLI, ['--upstream', upstream, '--port', '0', ...flags]),
    { TOOLSCOPE_HASH_KEY: 'proxy-hostile-key', ...env },
  );
  const url = waitFor(proxy, /"msg":"listening","url":"([^"]+)"/).then((m) => m[1] as string);
  return { proxy, url, pid: proxy.child.pid as number };
}

/** Resident memory now and at its peak (VmRSS, VmHWM), in MiB, read from /proc as `ps` would. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** Open file descriptors of a process (its sockets among them). */
export const descriptorsOf = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

export type Answer = { status: number; headers: Record<string, unknown>; body: string };

/** One HTTP request with exactly these headers (Host included), its whole answer. */
export function send(
  url: string,
  o: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: Agent;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { method: o.method ?? 'POST', headers: o.headers ?? {}, agent: o.agent };
    const req = request(url, options, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(parts).toString(),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The headers of an MCP POST over Streamable HTTP. */
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** A `tools/call` request body. */
export const toolCall = (id: number, name: string, args: unknown = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/**
 * Resolves once `value()` has stopped changing for `quietMs` (checked every 50 ms): a flood has either been held
 * back or gone through, whatever the machine's speed.
 */
export async function settled(value: () => number, quietMs: number): Promise<number> {
  let last = value();
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const now = value();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return now;
  }
}

/** The proxy's JSON log lines. */
export const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Stops the proxy with SIGTERM and returns its log lines once it exited. */
export async function stopProxy(proxy: ChildTransport) {
  proxy.child.kill('SIGTERM');
  await proxy.exited;
  return logLines(proxy.stderr);
}
