// The scripted agent (no model): plays SCENES against the stable and canary servers through a real MCP client
// instrumented with instrumentMcpClient, one agent span per turn, and writes which traces each scene made.
// Servers: `--stable` / `--canary` take a Streamable HTTP URL, or `stdio` (default) to start the server as
// a child process. `--fulfilment` takes the fulfilment deployment's URL (SDK v2, 2026-07-28, Streamable HTTP only),
// or `spawn` (default) to start it as a child on a free port. Spans go to OTEL_EXPORTER_OTLP_ENDPOINT.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { trace } from '@opentelemetry/api';
import { instrumentMcpClient } from '@toolscope/instrument';
import { setupToolscope } from '@toolscope/instrument/setup';
import { z } from 'zod';
import { connectFulfilment } from './fulfilment-client.js';
import { type Player, playScene } from './play.js';
import { SCENES } from './scenarios.js';
import type { Variant } from './tools.js';

const target = z.union([z.literal('stdio'), z.url({ protocol: /^https?$/ })]);
const argsSchema = z.object({
  stable: target.default('stdio'),
  canary: target.default('stdio'),
  fulfilment: z.union([z.literal('spawn'), z.url({ protocol: /^https?$/ })]).default('spawn'),
  manifest: z.string().min(1).optional(),
});
const { values } = parseArgs({
  options: {
    stable: { type: 'string' },
    canary: { type: 'string' },
    fulfilment: { type: 'string' },
    manifest: { type: 'string' },
  },
  strict: true,
});
const parsed = argsSchema.safeParse({
  stable: values.stable ?? process.env.ORDERS_STABLE_URL,
  canary: values.canary ?? process.env.ORDERS_CANARY_URL,
  fulfilment: values.fulfilment ?? process.env.ORDERS_FULFILMENT_URL,
  manifest: values.manifest,
});
if (!parsed.success) {
  const issue = parsed.error.issues[0];
  process.stderr.write(`agent: --${issue?.path.join('.')}: ${issue?.message}\n`);
  process.exit(2);
}
const opts = parsed.data;

const sdk = setupToolscope({ serviceName: 'scripted-agent' });
const conversation = { id: '' };

function transportFor(variant: Variant, where: string): Transport {
  if (where !== 'stdio') return new StreamableHTTPClientTransport(new URL(where));
  const server = fileURLToPath(new URL('./server.ts', import.meta.url));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return new StdioClientTransport({
    command: process.execPath,
    args: ['--import', import.meta.resolve('tsx'), '--conditions=@toolscope/source', server],
    env: { ...env, ORDERS_VARIANT: variant },
    stderr: 'inherit',
  });
}

async function connect(variant: Variant, where: string): Promise<Client> {
  const client = instrumentMcpClient(new Client({ name: 'scripted-agent', version: '1.0.0' }), {
    conversationId: () => conversation.id || undefined,
  });
  await client.connect(transportFor(variant, where));
  return client;
}

/** Starts the fulfilment deployment as a child process on a free port; resolves with it and its URL. */
async function spawnFulfilment(): Promise<{ child: ChildProcess; url: string }> {
  const server = fileURLToPath(new URL('./fulfilment-server.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      '--conditions=@toolscope/source',
      server,
      '--http',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  for await (const line of createInterface({
    input: child.stdout as NonNullable<typeof child.stdout>,
  })) {
    const url = /listening on (\S+)/.exec(line)?.[1];
    if (url) return { child, url };
  }
  throw new Error(`the fulfilment server exited with ${child.exitCode} before it listened`);
}

// The three deployments start side by side: each child process takes seconds to start on a loaded machine.
const fulfilmentChild = opts.fulfilment === 'spawn' ? spawnFulfilment() : undefined;
const [stable, canary, fulfilment] = await Promise.all([
  connect('stable', opts.stable),
  connect('canary', opts.canary),
  (fulfilmentChild ?? Promise.resolve(undefined)).then((child) =>
    connectFulfilment(child?.url ?? opts.fulfilment, conversation),
  ),
]);
const clients: Record<Variant, Client> = { stable, canary };

const player: Player = {
  clients,
  fulfilment,
  tracer: trace.getTracer('scripted-agent'),
  conversation,
  onScene: (scene) => process.stdout.write(`▶ ${scene.title}\n`),
  onCall: (c, outcome) =>
    process.stdout.write(`    ${c.server} ${c.tool} ${JSON.stringify(c.args)} → ${outcome}\n`),
};

const manifest: Record<string, { conversationId: string; traceIds: string[] }> = {};
for (const scene of SCENES) manifest[scene.id] = await playScene(scene, player);
if (opts.manifest) writeFileSync(opts.manifest, `${JSON.stringify(manifest, null, 2)}\n`);

await Promise.all([clients.stable.close(), clients.canary.close(), fulfilment.close()]);
// The fulfilment child flushes its spans when it stops.
const child = (await fulfilmentChild)?.child;
if (child) {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
await sdk.shutdown();
process.stdout.write('agent: done\n');
