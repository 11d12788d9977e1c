// A TCP forwarder on a port of its own in front of the test's PostgreSQL server, which a test shuts (the port
// refuses connections, and every connection through it is cut) and opens again, or stalls (connections are
// accepted and bytes held, as by a frozen host) and resumes: the database made unreachable or unresponsive for
// one collector without stopping the server that other test files share.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type TcpGate = {
  port: number;
  /** Starts forwarding new connections. */
  open(): Promise<void>;
  /** Refuses new connections and resets the open ones. */
  shut(): Promise<void>;
  /** Holds every byte in both directions (connections stay open) until resume(). */
  stall(): void;
  /** Delivers what was held, and forwards again. */
  resume(): void;
};

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });

/** A gate to 127.0.0.1:`targetPort`, shut at first. */
export async function tcpGate(targetPort: number): Promise<TcpGate> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let stalled = false;
  const held: { to: Socket; data: Buffer }[] = [];
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (data: Buffer) => {
      if (stalled) held.push({ to, data });
      else to.write(data);
    });
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  return {
    port,
    open: () =>
      new Promise((resolve, reject) => {
        const s = createServer((client) => {
          const upstream = createConnection(targetPort, '127.0.0.1');
          track(client);
          track(upstream);
          forward(client, upstream);
          forward(upstream, client);
          client.once('close', () => upstream.destroy());
          upstream.once('close', () => client.destroy());
        });
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => {
          server = s;
          resolve();
        });
      }),
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const { to, data } of held.splice(0)) if (!to.destroyed) to.write(data);
    },
    shut: async () => {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.resetAndDestroy();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}
