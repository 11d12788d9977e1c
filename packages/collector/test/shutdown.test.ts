// A client that connects and never sends a request (a pooled socket, a dead peer) must not hold the collector's
// shutdown. Node's server.close() waited for such a connection until its request timeout (5 min), and gRPC's
// shutdown waited for a connection that never began HTTP/2 even after it was forced. Found as a rare 60 s hang
// of auth.test.ts while stopping the collector. The HTTP connection is cut after the grace; the gRPC one is
// left to the process's exit (`serve` exits after close).
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestCollector } from './harness.js';

const silent = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });

describe('shutdown', () => {
  it('ends although clients hold silent connections to the HTTP and gRPC ports, and cuts the HTTP one', async () => {
    const c = await startTestCollector({ grpcPort: 0 });
    const sockets = [await silent(Number(new URL(c.url).port)), await silent(c.grpcPort as number)];
    // The HTTP connection is the one the collector cuts.
    const cut = new Promise<void>((resolve) => sockets[0]?.on('close', () => resolve()));
    try {
      await c.stop();
      await cut;
      expect(sockets[0]?.destroyed).toBe(true);
    } finally {
      for (const s of sockets) s.destroy();
    }
  }, 30_000);
});
