// `toolscope serve` processes for the flood tests: each on a gRPC port free when it starts (`--grpc-port 0`
// turns gRPC off), with a scratch folder, all killed and the folder removed once the file's tests are done.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { startServe } from './harness.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function servedCollectors(name: string) {
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), `toolscope-${name}-`));
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    /** `serve` on `db` with `args`, and the gRPC port it answers on. */
    start: async (db: string, args: string[]) => {
      const grpcPort = await freePort();
      const serve = await startServe(db, ['--grpc-port', String(grpcPort), ...args]);
      children.push(serve.child);
      return { ...serve, grpcPort, pid: serve.child.pid as number };
    },
  };
}
