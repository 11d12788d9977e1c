// A start that fails says so in one line naming the port and the flag that sets it: no raw library line
// (grpc-js's "E No address added …"), and no "listening" line before or after the failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveUntilExit } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'toolscope-start-'));
const taken: Server[] = [];
afterAll(() => {
  for (const s of taken) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port something else listens on. */
const occupied = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      taken.push(s);
      const address = s.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });

describe('a failed start', () => {
  for (const [flag, other, what] of [
    ['--grpc-port', '--port', 'OTLP/gRPC'],
    ['--port', '--grpc-port', 'HTTP'],
  ] as const) {
    it(`names the taken port and ${flag} in one line, and never says it listens`, async () => {
      const port = await occupied();
      const run = await serveUntilExit([
        '--db',
        join(dir, `${flag.slice(2)}.db`),
        flag,
        String(port),
        other,
        '0',
        '--log-level',
        'info',
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        `toolscope serve: cannot start: cannot listen for ${what} on 127.0.0.1:${port} (EADDRINUSE: the port is already in use); stop what uses it or choose another port with ${flag}${flag === '--grpc-port' ? ' (0 turns gRPC off)' : ''}`,
      ]);
      expect(run.stdout).not.toMatch(/listening/i);
    });
  }
});
