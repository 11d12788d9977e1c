// Bytes allocated per MCP `tools/call` by one variant of mcp-ab.ts (V8's sampling heap profiler, objects the
// collector has already freed included), for changes to the adapters: unlike CPU time on this shared machine, an
// allocation count does not move with the load, so it tells two builds apart where the A/B rounds cannot
// (decision 0055). One variant per process; TOP=N also prints the N functions that allocate most.
//
//   tsx --conditions=@toolscope/source bench/alloc-per-call.ts client        (bare, traceloop, server, client,
//   tsx --conditions=@toolscope/source bench/alloc-per-call.ts client@main    NAME@COPY as in mcp-ab.ts)
import { Session } from 'node:inspector/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type * as current from '../src/index.js';
import { connectVariant } from './mcp-peers.js';
import { noopProvider } from './noop-provider.js';

type Lib = typeof current;
type Node = {
  selfSize: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: Node[];
};

const variant = process.argv[2] ?? 'bare';
const [kind, copy] = variant.split('@');
const lib = (await import(copy ? `../.ab-${copy}/src/index.ts` : '../src/index.js')) as Lib;
const CALLS = Number(process.env.ALLOC_CALLS ?? 10_000);

const provider = noopProvider();
const options = { tracerProvider: provider, hashKey: 'bench-key' };
const server = new McpServer({ name: 'bench', version: '1' });
const inputSchema = { customerId: z.string().min(1), includeHistory: z.boolean().default(false) };
server.registerTool(
  'get_order',
  { inputSchema, annotations: { readOnlyHint: true } },
  async ({ customerId }) => {
    const order = { found: true, customerId, orders: [{ id: 'ord_1', status: 'paid' }] };
    return { content: [{ type: 'text' as const, text: JSON.stringify(order) }] };
  },
);
if (kind === 'server') lib.instrumentMcpServer(server, options);
const client = await connectVariant(server, kind, provider, (bare) =>
  lib.instrumentMcpClient(bare, options),
);

// One turn of the event loop per call, as in the bench.
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
async function calls(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await client.callTool({
      name: 'get_order',
      arguments: { customerId: 'cus_1', includeHistory: true },
    });
    await turn();
  }
}

await calls(3_000); // warm-up: JIT, caches, the adapters' per-tool templates
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 128,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
await calls(CALLS);
const { profile } = await session.post('HeapProfiler.stopSampling');

const byFunction = new Map<string, number>();
let total = 0;
const walk = (node: Node): void => {
  total += node.selfSize;
  const f = node.callFrame;
  const where = f.url
    .replace(/.*node_modules\/\.pnpm\/([^/]+)\/.*\/([^/]+)$/, '$1/$2')
    .replace(/.*\/packages\//, '');
  const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child);
};
walk(profile.head as unknown as Node);
console.log(`${variant}: ${(total / CALLS).toFixed(0)} bytes allocated per call (${CALLS} calls)`);
const top = [...byFunction].sort((x, y) => y[1] - x[1]).slice(0, Number(process.env.TOP ?? 0));
for (const [key, bytes] of top)
  console.log(`${(bytes / CALLS).toFixed(0).padStart(8)}  ${key.slice(0, 110)}`);
await provider.shutdown();
process.exit(0);
