// The HTTP reverse proxy: serves the upstream's own path (and, for the older HTTP+SSE transport, the message
// endpoint its stream names), forwards every request and answer (JSON or Server-Sent Events) as it comes, and
// observes a copy, one observer per MCP session (http-sessions.ts). A POST's body gets the proxy's traceparent in a
// `tools/call`, as over stdio; every header (`Mcp-Method` and `Mcp-Name` too) goes upstream as it came, and `Host`
// as the client meant it (http-guard.ts). It is a local server that behaves: Host and Origin are checked, memory
// and connections are bounded, and a slow client holds the upstream back instead of filling the proxy.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { capConnections, serverTimeouts } from './connection-limits.js';
import { readBody, refuseBody } from './http-body.js';
import { createGuard } from './http-guard.js';
import { HttpSessions } from './http-sessions.js';
import { causeOf, type Logger } from './log.js';
import { type HoldRefusal, holdings } from './memory-budget.js';
import type { McpObserver } from './observer.js';
import type { ProxyOptions } from './options.js';
import type { ProxyRun } from './session.js';
import { jsonReader, sseReader } from './sse-lines.js';

export type HttpProxyOptions = {
  options: Extract<ProxyOptions, { mode: 'http' }>;
  run: ProxyRun;
  log: Logger;
  finish: () => Promise<void>;
  /** Called with the address once listening (tests, and the log line). */
  onListening?: (url: string) => void;
};

const MIB = 1024 * 1024;
const SESSION = 'mcp-session-id';
// Hop-by-hop headers (RFC 9110 §7.6.1) stay with their hop; the length is the body's as forwarded, and the Host
// is decided for the upstream (http-guard.ts).
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

function headersOf(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Runs the HTTP proxy until SIGTERM/SIGINT; resolves with 0 after the spans are flushed. */
export function runHttpProxy(o: HttpProxyOptions): Promise<number> {
  const opts = o.options;
  const upstream = new URL(opts.upstream);
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const sessions = new HttpSessions(o.run, opts.maxSessions, o.log);
  const guard = createGuard({ ...opts, upstream });
  const memory = holdings(opts.maxBufferedMb * MIB, opts.maxBodyMb * MIB);
  const counts = { refusedHost: 0, refusedOrigin: 0, bodiesTooLarge: 0, busy: 0, unreadAnswers: 0 };
  if (opts.enforceOutput)
    o.log.log(
      'warn',
      '--enforce-output applies to stdio only for now; HTTP results are checked and recorded',
    );

  // The paths served: the upstream's own, and the message endpoints the older SSE transport names.
  const paths = new Set([upstream.pathname]);
  /** The older transport's `endpoint` event: where the client will POST, with its session in the query. */
  const onEndpoint = (data: Buffer, observer: McpObserver, socket: Socket) => {
    const target = new URL(data.toString().trim(), upstream);
    if (target.origin !== upstream.origin) return;
    paths.add(target.pathname);
    const session = target.searchParams.get('sessionId');
    if (session && !sessions.has(session)) sessions.remember(session, observer, socket);
  };
  const unread = (why: HoldRefusal) => {
    counts.unreadAnswers++;
    o.log.once(`unread-${why}`, 'warn', 'an answer was forwarded without being observed', {
      why:
        why === 'too_large'
          ? `a message over ${opts.maxBodyMb} MiB (--max-body-mb)`
          : `${opts.maxBufferedMb} MiB of messages held (--max-buffered-mb)`,
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const asked = new URL(req.url ?? '/', 'http://proxy');
    if (!paths.has(asked.pathname)) {
      json(res, 404, {
        error: { code: 'NOT_FOUND', message: `this proxy serves ${upstream.pathname}` },
      });
      return;
    }
    // DNS-rebinding protection, before anything of the request is read or forwarded.
    const refusal = guard.check(req);
    if (refusal) {
      if (refusal.check === 'host') counts.refusedHost++;
      else counts.refusedOrigin++;
      const message = refusal.message.slice(0, 300);
      o.log.once(`refused-${refusal.check}`, 'warn', 'request refused (DNS-rebinding protection)', {
        message,
        allow: refusal.check === 'host' ? '--allowed-hosts' : '--allowed-origins',
      });
      json(res, 403, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
      return;
    }
    const observer = sessions.observerFor(req);
    const holding = memory.hold();
    const calls: string[] = [];
    let body: Buffer | undefined;
    if (req.method === 'POST') {
      const read = await readBody(req, holding, memory.maxMessageBytes);
      if (!read.ok) {
        if (read.reason === 'aborted') return;
        if (read.reason === 'too_large') counts.bodiesTooLarge++;
        else counts.busy++;
        o.log.once(`body-${read.reason}`, 'warn', 'a request body was refused', {
          status: read.reason === 'too_large' ? 413 : 503,
          maxBodyMb: opts.maxBodyMb,
          maxBufferedMb: opts.maxBufferedMb,
        });
        refuseBody(res, read.reason, opts);
        return;
      }
      body = read.body.length > 0 ? observer.fromClient(read.body, calls) : read.body;
    }
    const headers = headersOf(req);
    headers.host = guard.upstreamHost(req);
    if (body) headers['content-length'] = String(body.length);
    const target = new URL(asked.pathname + asked.search, upstream);
    const out = send(target, { method: req.method, headers }, (answer) => {
      const session = answer.headers[SESSION];
      // The initialize answer names the session: later requests carrying it share this observer.
      if (typeof session === 'string' && session.length > 0 && !sessions.has(session))
        sessions.remember(session, observer, req.socket);
      const responseHeaders: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers))
        if (v !== undefined && (!HOP.has(k) || k === 'content-length')) responseHeaders[k] = v;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders);
      const type = String(answer.headers['content-type'] ?? '');
      const reading = memory.hold();
      const reader = type.includes('text/event-stream')
        ? sseReader(
            reading,
            (data, event) => {
              if (event === 'endpoint') onEndpoint(data, observer, req.socket);
              else observer.fromUpstream(data);
            },
            unread,
          )
        : jsonReader(type, reading, (data) => observer.fromUpstream(data), unread);
      answer.on('data', (chunk: Buffer) => {
        // Forward first, look after; a client slower than the upstream holds the upstream back.
        if (!res.write(chunk)) {
          answer.pause();
          res.once('drain', () => answer.resume());
        }
        reader.push(chunk);
      });
      answer.on('end', () => {
        res.end();
        reader.end();
      });
      answer.on('close', () => reader.close());
      answer.on('error', (error) => {
        o.log.log('warn', 'upstream answer broke off', causeOf(error));
        res.destroy();
      });
    });
    // The body's bytes are held until they are on their way.
    out.once('finish', () => holding.release());
    out.once('close', () => holding.release());
    let clientGone = false;
    out.on('error', (error) => {
      if (clientGone) return;
      o.log.log('warn', 'upstream unreachable', { upstream: upstream.origin, ...causeOf(error) });
      // Only this request's calls failed; the session's others go on.
      const ended = observer.endCalls(calls);
      if (!res.headersSent)
        json(res, 502, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32603, message: 'upstream unreachable' },
        });
      else res.destroy();
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
      if (typeof id === 'string') sessions.forget(id);
    }
    out.end(body);
    observer.afterForward();
  };

  const limits = { maxConnections: opts.maxConnections, idleTimeoutMs: opts.idleTimeoutMs };
  const server = createServer(serverTimeouts(limits), (req, res) => {
    handle(req, res).catch((error: unknown) => {
      o.log.once('http-handler', 'error', 'request failed in the proxy', causeOf(error));
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const connections = capConnections(server, limits, o.log);

  return new Promise<number>((resolve) => {
    server.on('error', (error) => {
      o.log.log('error', 'could not listen', {
        host: opts.host,
        port: opts.port,
        ...causeOf(error),
      });
      void o.finish().then(() => resolve(1));
    });
    server.listen(opts.port, opts.host, () => {
      const address = server.address() as AddressInfo;
      const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}${upstream.pathname}`;
      o.log.log('info', 'listening', { url, upstream: upstream.origin + upstream.pathname });
      o.onListening?.(url);
    });
    const stop = (signal: NodeJS.Signals) => {
      o.log.log('info', 'stopping', { signal });
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      o.log.log('info', 'http traffic', {
        ...counts,
        sessions: sessions.size,
        sessionsEvicted: sessions.evicted,
        connections: connections.open(),
      });
      server.close();
      server.closeAllConnections();
      sessions.endAll();
      void o.finish().then(() => resolve(0));
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
