// The HTTP reverse proxy: serves the upstream's own path (and, for the older HTTP+SSE transport, the message
// endpoint its stream names), forwards every request and answer (JSON or Server-Sent Events) as it comes, and
// observes a copy, one observer per MCP session (`Mcp-Session-Id`), or per client connection where there is no
// session (a stateless server, the 2026-07-28 revision). A POST's body gets the proxy's traceparent in a
// `tools/call`, as over stdio; every header (`Mcp-Method` and `Mcp-Name` too) goes upstream as it came.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { ConversationScopes } from './conversation-scopes.js';
import { causeOf, type Logger } from './log.js';
import type { McpObserver } from './observer.js';
import type { ProxyOptions } from './options.js';
import type { ProxyRun } from './session.js';
import { sseReader } from './sse-lines.js';

export type HttpProxyOptions = {
  options: Extract<ProxyOptions, { mode: 'http' }>;
  run: ProxyRun;
  log: Logger;
  finish: () => Promise<void>;
  /** Called with the address once listening (tests, and the log line). */
  onListening?: (url: string) => void;
};

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const SESSION = 'mcp-session-id';
const MAX_SESSIONS = 10_000;
// Hop-by-hop headers (RFC 9110 §7.6.1) stay with their hop; the length is the body's as forwarded.
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
]);

const readBody = (req: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

function headersOf(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

/** Runs the HTTP proxy until SIGTERM/SIGINT; resolves with 0 after the spans are flushed. */
export function runHttpProxy(o: HttpProxyOptions): Promise<number> {
  const upstream = new URL(o.options.upstream);
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const sessions = new Map<string, McpObserver>();
  // Traffic without a session is observed per client connection (an answer comes back on its request's), and
  // its calls are grouped into conversations by client (conversation-scopes.ts).
  const byConnection = new WeakMap<Socket, McpObserver>();
  const connections = new Set<McpObserver>();
  const scopes = new ConversationScopes();
  if (o.options.enforceOutput)
    o.log.log(
      'warn',
      '--enforce-output applies to stdio only for now; HTTP results are checked and recorded',
    );

  // The paths served: the upstream's own, and the message endpoints the older SSE transport names.
  const paths = new Set([upstream.pathname]);
  const remember = (session: string, observer: McpObserver, socket: Socket) => {
    // Sessions a client never deletes are forgotten oldest first, past a bound.
    if (sessions.size >= MAX_SESSIONS) {
      const oldest = sessions.keys().next().value;
      if (oldest !== undefined) sessions.delete(oldest);
    }
    sessions.set(session, observer);
    observer.setSession(session);
    // The connection's observer became the session's: the connection's next session-less traffic is new.
    if (byConnection.get(socket) === observer) {
      byConnection.delete(socket);
      connections.delete(observer);
    }
  };
  /** The older transport's `endpoint` event: where the client will POST, with its session in the query. */
  const onEndpoint = (data: Buffer, observer: McpObserver, socket: Socket) => {
    const target = new URL(data.toString().trim(), upstream);
    if (target.origin !== upstream.origin) return;
    paths.add(target.pathname);
    const session = target.searchParams.get('sessionId');
    if (session && !sessions.has(session)) remember(session, observer, socket);
  };

  const observerFor = (req: IncomingMessage): McpObserver => {
    const id =
      req.headers[SESSION] ?? new URL(req.url ?? '/', 'http://proxy').searchParams.get('sessionId');
    const key = typeof id === 'string' ? id : undefined;
    if (key) {
      let observer = sessions.get(key);
      if (!observer) {
        observer = o.run.observe('tcp', key);
        sessions.set(key, observer);
      }
      return observer;
    }
    let observer = byConnection.get(req.socket);
    if (!observer) {
      const address = req.socket.remoteAddress ?? '';
      const made = o.run.observe('tcp', undefined, (meta) => scopes.of(address, meta));
      byConnection.set(req.socket, made);
      connections.add(made);
      req.socket.once('close', () => connections.delete(made));
      observer = made;
    }
    return observer;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    if (!paths.has(path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { code: 'NOT_FOUND', message: `this proxy serves ${upstream.pathname}` },
        }),
      );
      return;
    }
    const observer = observerFor(req);
    let body: Buffer | undefined;
    if (req.method === 'POST') {
      const raw = await readBody(req);
      if (!raw) {
        res.writeHead(413, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { code: 'BODY_TOO_LARGE', message: `over ${MAX_BODY_BYTES} bytes` },
          }),
        );
        return;
      }
      body = raw.length > 0 ? observer.fromClient(raw) : raw;
    }
    const headers = headersOf(req);
    if (body) headers['content-length'] = String(body.length);
    const asked = new URL(req.url ?? '/', 'http://proxy');
    const target = new URL(asked.pathname + asked.search, upstream);
    const out = send(target, { method: req.method, headers }, (answer) => {
      const session = answer.headers[SESSION];
      // The initialize answer names the session: later requests carrying it share this observer.
      if (typeof session === 'string' && !sessions.has(session))
        remember(session, observer, req.socket);
      const responseHeaders: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers))
        if (v !== undefined && (!HOP.has(k) || k === 'content-length')) responseHeaders[k] = v;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders);
      const type = String(answer.headers['content-type'] ?? '');
      const reader = type.includes('text/event-stream')
        ? sseReader((data, event) => {
            if (event === 'endpoint') onEndpoint(data, observer, req.socket);
            else observer.fromUpstream(data);
          })
        : jsonReader(type, (data) => observer.fromUpstream(data));
      answer.on('data', (chunk: Buffer) => {
        // Forward first, look after.
        res.write(chunk);
        reader.push(chunk);
      });
      answer.on('end', () => {
        res.end();
        reader.end();
      });
      answer.on('error', (error) => {
        o.log.log('warn', 'upstream answer broke off', causeOf(error));
        res.destroy();
      });
    });
    let clientGone = false;
    out.on('error', (error) => {
      if (clientGone) return;
      o.log.log('warn', 'upstream unreachable', { upstream: upstream.origin, ...causeOf(error) });
      const ended = observer.endAll();
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32603, message: 'upstream unreachable' },
          }),
        );
      } else res.destroy();
      if (ended > 0) o.log.log('info', 'calls ended as upstream_exited', { calls: ended });
    });
    // The client went away before the answer was complete: the upstream request goes too.
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      out.destroy();
    });
    if (req.method === 'DELETE') {
      const id = req.headers[SESSION];
      if (typeof id === 'string') {
        sessions.get(id)?.endAll();
        sessions.delete(id);
      }
    }
    out.end(body);
    observer.afterForward();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      o.log.once('http-handler', 'error', 'request failed in the proxy', causeOf(error));
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  return new Promise<number>((resolve) => {
    server.on('error', (error) => {
      o.log.log('error', 'could not listen', {
        host: o.options.host,
        port: o.options.port,
        ...causeOf(error),
      });
      void o.finish().then(() => resolve(1));
    });
    server.listen(o.options.port, o.options.host, () => {
      const address = server.address() as AddressInfo;
      const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}${upstream.pathname}`;
      o.log.log('info', 'listening', { url, upstream: upstream.origin + upstream.pathname });
      o.onListening?.(url);
    });
    const stop = (signal: NodeJS.Signals) => {
      o.log.log('info', 'stopping', { signal });
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      server.close();
      server.closeAllConnections();
      for (const observer of sessions.values()) observer.endAll();
      for (const observer of connections) observer.endAll();
      void o.finish().then(() => resolve(0));
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** A JSON answer's body, observed once whole. */
function jsonReader(type: string, onBody: (body: Buffer) => void) {
  const parts: Buffer[] = [];
  let size = 0;
  const json = type.includes('json');
  return {
    push: (chunk: Buffer) => {
      if (!json || size > MAX_BODY_BYTES) return;
      size += chunk.length;
      parts.push(chunk);
    },
    end: () => {
      if (json && size > 0 && size <= MAX_BODY_BYTES) onBody(Buffer.concat(parts));
    },
  };
}
