// The HTTP proxy's DNS-rebinding protection, decided as the MCP SDK's own `createMcpExpressApp()` and
// `validateOriginHeader` decide: a request whose `Host` names neither a loopback name, the address the proxy
// listens on, nor a name the operator allowed is refused with 403 before its body is read, and so is a request
// whose `Origin` (a browser's) is present and not allowed (the MCP transport spec: servers MUST validate
// `Origin`). The upstream is then sent the Host the client meant: its own name when the client addressed the
// proxy by a local name, else the client's, so a local upstream's own Host check still judges it.
import type { IncomingMessage } from 'node:http';

/** The loopback names every local MCP server accepts (the SDK's `localhostAllowedHostnames()`). */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]', '']);
// What a Host header may hold: a name or an address, with a port; no user, path or query (which `new URL` would
// quietly take apart, reading `evil@127.0.0.1` as 127.0.0.1).
const HOST_HEADER = /^[A-Za-z0-9.\-_]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export type GuardOptions = {
  /** The address the proxy listens on (`--host`). */
  host: string;
  /** `--allowed-hosts`: host names served besides the proxy's own; `*` for any. */
  allowedHosts: readonly string[];
  /** `--allowed-origins`: host names, origins (`scheme://host[:port]`) or `scheme://*`; `*` for any. */
  allowedOrigins: readonly string[];
  upstream: URL;
};

/** Why a request was refused: the answer is 403 with this JSON-RPC message (as the SDK answers). */
export type Refusal = { check: 'host' | 'origin'; message: string };

/** A host name as the checks compare it: lower case, an IPv6 address in brackets. */
export function hostName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/** The host name of a Host header, or undefined when it is not one. */
function hostOf(header: string | undefined): string | undefined {
  if (!header || !HOST_HEADER.test(header)) return undefined;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return undefined;
  }
}

const isLoopback = (name: string) =>
  (LOOPBACK_NAMES as readonly string[]).includes(name) || /^127(\.\d{1,3}){3}$/.test(name);

/** The checks of one proxy, from its options. */
export function createGuard(o: GuardOptions) {
  const own = new Set<string>(LOOPBACK_NAMES);
  if (!WILDCARD_ADDRESSES.has(o.host.trim())) own.add(hostName(o.host));
  const anyHost = o.allowedHosts.includes('*');
  const hosts = new Set([...own, ...o.allowedHosts.map(hostName)]);
  const anyOrigin = o.allowedOrigins.includes('*');
  const originHosts = new Set(own);
  const origins = new Set<string>();
  for (const entry of o.allowedOrigins) {
    if (/^[a-z][a-z0-9+.-]*:\/\/\*$/i.test(entry)) origins.add(entry.toLowerCase());
    else if (entry.includes('://')) {
      try {
        const url = new URL(entry);
        // A scheme without an origin of its own (an extension's) is known by its host name, as the SDK does.
        if (url.origin === 'null') originHosts.add(hostName(url.hostname));
        else origins.add(url.origin);
      } catch {
        // A malformed entry allows nothing.
      }
    } else originHosts.add(hostName(entry));
  }
  // A server on this machine checks Host against DNS rebinding: it hears the name the client used. A remote one
  // routes by its own name (virtual hosts, TLS), which the proxy then keeps.
  const upstreamIsLocal = isLoopback(hostName(o.upstream.hostname));

  return {
    /** Undefined when the request may pass. */
    check(req: IncomingMessage): Refusal | undefined {
      const header = req.headers.host;
      const name = hostOf(header);
      if (!anyHost && (name === undefined || !hosts.has(name)))
        return {
          check: 'host',
          message:
            name === undefined ? `Invalid Host header: ${header ?? ''}` : `Invalid Host: ${name}`,
        };
      const origin = req.headers.origin;
      if (anyOrigin || origin === undefined || origin === '') return undefined;
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        return { check: 'origin', message: `Invalid Origin header: ${origin}` };
      }
      if (url.hostname === '')
        return { check: 'origin', message: `Invalid Origin header: ${origin}` };
      if (
        originHosts.has(url.hostname) ||
        origins.has(url.origin) ||
        origins.has(`${url.protocol}//*`)
      )
        return undefined;
      return { check: 'origin', message: `Invalid Origin: ${url.hostname}` };
    },

    /** The Host header the upstream is sent for a request that passed `check`. */
    upstreamHost(req: IncomingMessage): string {
      const header = req.headers.host;
      const name = hostOf(header);
      if (header === undefined || name === undefined || own.has(name) || !upstreamIsLocal)
        return o.upstream.host;
      return header;
    },
  };
}

export type Guard = ReturnType<typeof createGuard>;
