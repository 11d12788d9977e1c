// The proxy under test as a real process (`toolscope-proxy` as installed, or from its TypeScript source through
// tsx), with an MCP transport over its stdin/stdout, its stderr (JSON log lines) kept, and its exit code awaited.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { builtPackages } from '../../packages/collector/test/built.js';
import { ROOT } from './processes.js';

const TSX = import.meta.resolve('tsx');
export const PROXY_CLI = `${ROOT}packages/proxy/src/cli.ts`;
export const EVERYTHING = `${ROOT}test/node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
export const FILESYSTEM = `${ROOT}test/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
export const LIAR = `${ROOT}test/e2e/proxy-upstream.mjs`;
/** A v2 SDK server (plain JavaScript: no loader to start, and the v2 client's probe starts it twice). */
export const V2_UPSTREAM = `${ROOT}test/e2e/proxy-v2-upstream.mjs`;

/**
 * `toolscope-proxy` as `npm install` leaves it (its bin/ and built JavaScript, built.ts), for the tests that start
 * it to trace: a start under tsx took 1.3 s of CPU, this one 0.5 s. The memory tests (proxy-hostile.ts) run it
 * from sources.
 */
export const builtProxy = (args: string[]) => [
  join(builtPackages(), 'packages/proxy/bin/toolscope-proxy.js'),
  ...args,
];

/** Node with tsx and the workspace's source condition, for TypeScript entry points. */
export const tsNode = (entry: string, args: string[] = []) => [
  '--import',
  TSX,
  '--conditions=@toolscope/source',
  entry,
  ...args,
];

/** A client transport over a child process's stdio. */
export class ChildTransport implements Transport {
  readonly child: ChildProcess;
  readonly exited: Promise<number>;
  stderr = '';
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();

  constructor(command: string, args: string[], env: Record<string, string> = {}) {
    this.child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.onclose?.();
        resolve(code ?? (signal ? 128 : 1));
      });
    });
  }

  async start(): Promise<void> {
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        const message = this.#buffer.readMessage();
        if (!message) break;
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin?.write(serializeMessage(message));
  }

  /** Ends the client's side (stdin EOF), as a client that is done does. */
  async close(): Promise<void> {
    this.child.stdin?.end();
  }
}

/** A connected client to an upstream through the proxy; `done()` closes stdin and waits for the proxy to exit. */
export async function throughProxy(
  upstream: string[],
  options: { flags?: string[]; env?: Record<string, string>; client?: string } = {},
) {
  const transport = new ChildTransport(
    process.execPath,
    builtProxy([...(options.flags ?? []), '--', ...upstream]),
    options.env,
  );
  const client = new Client({ name: options.client ?? 'proxy-test-agent', version: '1' });
  await client.connect(transport).catch((error: Error) => {
    throw new Error(`${error.message}; proxy stderr:\n${transport.stderr}`);
  });
  return {
    client,
    transport,
    done: async () => {
      await transport.close();
      return transport.exited;
    },
  };
}

/** A connected client straight to an upstream (no proxy), for comparisons. */
export async function direct(upstream: string[]) {
  const [command, ...args] = upstream;
  const transport = new ChildTransport(command ?? process.execPath, args);
  const client = new Client({ name: 'direct', version: '1' });
  await client.connect(transport);
  return {
    client,
    done: async () => {
      await client.close();
      transport.child.kill();
      return transport.exited;
    },
  };
}

/** Waits for a line matching `re` in a child's stdout or stderr. */
export function waitFor(child: ChildTransport, re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = re.exec(seen);
      if (m) resolve(m);
    };
    child.child.stdout?.on('data', look);
    child.child.stderr?.on('data', look);
    child.child.on('close', () => reject(new Error(`exited before ${re}: ${seen}`)));
  });
}

/** `toolscope-proxy --upstream URL --port 0` exporting to `collector`; `url` is where it listens. */
export function httpProxy(collector: string, upstream: string, env: Record<string, string>) {
  const proxy = new ChildTransport(
    process.execPath,
    builtProxy(['--otlp-endpoint', collector, '--upstream', upstream, '--port', '0']),
    env,
  );
  return {
    proxy,
    url: waitFor(proxy, /"msg":"listening","url":"([^"]+)"/).then((m) => m[1] as string),
  };
}
