// The HTTP proxy's connections, bounded: a connection with no request in progress is closed after the idle
// timeout (Node's own header and keep-alive timeouts, checked often enough to hold), and past the cap the
// connection idle longest makes room for a new one, so idle sockets can neither exhaust the process's file
// descriptors nor lock a client out. A connection carrying a request (an event stream that stays open) is never
// closed for room; when all are, the new one is refused.
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from './log.js';

export type ConnectionLimits = { maxConnections: number; idleTimeoutMs: number };

/** What `createServer` is given: a connection without a request is idle from its first byte on, or before. */
export function serverTimeouts(l: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: l.idleTimeoutMs,
    keepAliveTimeout: l.idleTimeoutMs,
    // A request's body must arrive within this (Node refuses a header timeout above it).
    requestTimeout: Math.max(60_000, l.idleTimeoutMs),
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(l.idleTimeoutMs / 4))),
  };
}

/** Applies the cap to `server`; `open()` says how many connections it holds. */
export function capConnections(server: Server, l: ConnectionLimits, log: Logger) {
  // Insertion order is age: the first idle one found is the one idle longest.
  const open = new Set<Socket>();
  const busy = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    if (open.size >= l.maxConnections) {
      let evicted = false;
      for (const s of open) {
        if (busy.has(s)) continue;
        s.destroy();
        open.delete(s);
        evicted = true;
        break;
      }
      if (!evicted) {
        log.once('connections-full', 'warn', 'connection refused: every connection is in use', {
          maxConnections: l.maxConnections,
        });
        socket.destroy();
        return;
      }
      log.once('connections-evicted', 'info', 'closed the longest idle connection to make room', {
        maxConnections: l.maxConnections,
      });
    }
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = (busy.get(socket) ?? 1) - 1;
      if (n > 0) busy.set(socket, n);
      else busy.delete(socket);
      // Re-inserted: a connection that just served a request is the youngest idle one.
      if (open.delete(socket)) open.add(socket);
    });
  });
  return { open: () => open.size };
}
