// Interleaved A/B rounds of the MCP adapters and their peers in one process, for changes to the adapters: a
// variant `server@old` runs packages/instrument/.ab-old/src (a copy of the sources the developer makes, ignored by
// git) beside `server` on the current sources. Prints the wall time, the wall time to the last response and the
// CPU each variant adds to the bare tool.
//
//   MCP_AB_VARIANTS=bare,traceloop,server,server@old,client,register  (the first is the reference)
//   MCP_AB_ROUNDS=40 MCP_AB_QUANTILE=0.25  (the round quantile reported; 0.5 is the median)
//   MCP_AB_WINDOWS=FILE  writes each round's [variant, start µs, end µs] for profile-by-variant.ts
//   MCP_AB_YIELD=1  one turn of the event loop after each call, as a real transport gives each message its own
//     I/O callback (InMemoryTransport runs on microtasks, so work deferred past a response otherwise waits for the
//     round's end and runs in one batch)
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import * as current from '../src/index.js';
import { connectVariant } from './mcp-peers.js';
import { noopProvider } from './noop-provider.js';

type Lib = typeof current;

const provider = noopProvider();
const shape = { customerId: z.string().min(1), includeHistory: z.boolean().default(false) };
const output = z.object({
  found: z.boolean(),
  customerId: z.string(),
  orders: z.array(z.object({ id: z.string(), status: z.enum(['pending', 'paid', 'cancelled']) })),
});
const service = async (customerId: string) => ({
  found: true,
  customerId,
  orders: [{ id: 'ord_1', status: 'paid' as const }],
});
const raw = { customerId: 'cus_1', includeHistory: true };
const plainHandler = async ({ customerId }: { customerId: string }) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(await service(customerId)) }],
});
const options = { tracerProvider: provider, hashKey: 'bench-key' };

const names = (process.env.MCP_AB_VARIANTS ?? 'bare,traceloop,server,client,register').split(',');
const libs = new Map<string, Lib>();
for (const name of names) {
  const copy = name.split('@')[1];
  if (copy && !libs.has(copy)) libs.set(copy, (await import(`../.ab-${copy}/src/index.ts`)) as Lib);
}

async function connect(name: string): Promise<Client> {
  const [kind, copy] = name.split('@');
  const lib = copy ? (libs.get(copy) as Lib) : current;
  const server = new McpServer({ name: 'bench', version: '1' });
  if (kind === 'register') {
    const tool = lib.defineTool({
      name: 'get_order',
      version: '1',
      effect: 'read',
      description: 'Orders of one customer',
      input: z.object(shape).strict(),
      output,
      ...options,
      execute: (i) => service(i.customerId),
    });
    lib.instrumentMcpServer(server, options);
    lib.registerMcpTool(server, tool);
  } else {
    const config = { inputSchema: shape, annotations: { readOnlyHint: true } };
    server.registerTool('get_order', config, plainHandler);
    if (kind === 'server') lib.instrumentMcpServer(server, options);
  }
  return connectVariant(server, kind, provider, (bare) => lib.instrumentMcpClient(bare, options));
}

const clients = await Promise.all(names.map(connect));
const ROUNDS = Number(process.env.MCP_AB_ROUNDS ?? 40);
const QUANTILE = Number(process.env.MCP_AB_QUANTILE ?? 0.5);
const YIELD = process.env.MCP_AB_YIELD === '1';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs one round and returns when its last response arrived (hrtime ns), before the work deferred past it ran.
 * With MCP_AB_YIELD each earlier call's deferred work has already run, in the turn after it.
 */
async function round(client: Client): Promise<bigint> {
  for (let i = 0; i < 1000; i++) {
    await client.callTool({ name: 'get_order', arguments: raw });
    if (YIELD && i < 999) await turn();
  }
  const answered = process.hrtime.bigint();
  // One turn of the event loop, so work deferred past the response is counted in its own round.
  await turn();
  return answered;
}

for (const client of clients) for (let i = 0; i < 2; i++) await round(client);
const windows: [string, number, number][] = [];
const cpu = new Map<string, number[]>(names.map((n) => [n, []]));
const wall = new Map<string, number[]>(names.map((n) => [n, []]));
const response = new Map<string, number[]>(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) {
  // The order turns by one each round: a round after a costlier variant inherits some of its collections' work,
  // so a fixed order would favour the variant that always follows the bare tool (about 1.5 µs in an A/A run).
  for (let j = 0; j < names.length; j++) {
    const k = (j + r) % names.length;
    const name = names[k] as string;
    const used = process.cpuUsage();
    const start = process.hrtime.bigint();
    const answered = await round(clients[k] as Client);
    const end = process.hrtime.bigint();
    const spent = process.cpuUsage(used);
    windows.push([name, Number(start / 1000n), Number(end / 1000n)]);
    cpu.get(name)?.push((spent.user + spent.system) / 1000);
    wall.get(name)?.push(Number(end - start) / 1e6);
    response.get(name)?.push(Number(answered - start) / 1e6);
  }
}
await provider.shutdown();

const at = (xs: number[] | undefined) =>
  [...(xs ?? [])].sort((a, b) => a - b)[Math.floor((xs?.length ?? 0) * QUANTILE)] ?? Number.NaN;
const reference = names[0] as string;
const fmt = (n: number) => n.toFixed(2).padStart(7);
console.log(
  `mcp-ab  ${ROUNDS} rounds × 1000 tools/call, quantile ${QUANTILE} of the rounds, µs per call`,
);
console.log(
  `  ${''.padEnd(18)} ${'wall'.padStart(7)} ${'CPU'.padStart(7)} | ${'+wall'.padStart(7)} ${'+resp'.padStart(7)} ${'+CPU'.padStart(7)}`,
);
console.log('  (+: added to the first variant; resp: wall time to the last response)');
for (const name of names) {
  const w = at(wall.get(name));
  const c = at(cpu.get(name));
  const dw = w - at(wall.get(reference));
  const dc = c - at(cpu.get(reference));
  const dr = at(response.get(name)) - at(response.get(reference));
  console.log(`  ${name.padEnd(18)} ${fmt(w)} ${fmt(c)} | ${fmt(dw)} ${fmt(dr)} ${fmt(dc)}`);
}
if (process.env.MCP_AB_WINDOWS) writeFileSync(process.env.MCP_AB_WINDOWS, JSON.stringify(windows));
process.exit(0);
