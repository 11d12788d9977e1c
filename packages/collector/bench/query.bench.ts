// `pnpm bench:query [-- --db postgres://…]`: 1M tool calls spread over the last 24 h (traces of 6 calls, 8
// tools, 3 MCP clients and calls naming none), then the API's answer times measured over HTTP on loopback:
// /api/tools for 24 h (and for one client), one trace, one page of calls, flags and the dashboard's queries (time
// series, tool page, failing calls, search), and how long an ingest request waits while /api/flags runs, each
// with the load average. SQLite by default; with a URL, an empty PostgreSQL database. Prints numbers; asserts
// nothing.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openStorage, startCollector } from '../src/index.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { processBatch } from '../src/process/batch.js';
import { isPostgresUrl } from '../src/storage/open.js';
import { CODES, spreadCallId, TOOLS } from './spans.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000_000);
const PER_TRACE = 6;
const DAY_NS = 86_400_000_000_000n;

const { values: args } = parseArgs({ options: { db: { type: 'string' } } });
const dir = mkdtempSync(join(tmpdir(), 'toolscope-query-'));
const db = args.db ?? process.env.BENCH_DB ?? join(dir, 'query.db');
const nowNs = BigInt(Date.now()) * 1_000_000n;
const resource = { 'service.name': 'bench-agent' };
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const CLIENTS = [
  ['claude-desktop', '0.9.1'],
  ['claude-desktop', '0.10.0'],
  ['cursor', '1.2.3'],
  null,
] as const;

function span(i: number): NormalizedSpan {
  const trace = Math.floor(i / PER_TRACE);
  const tool = (
    trace % 50 === 0 && i % PER_TRACE < 3 ? TOOLS[0] : TOOLS[i % TOOLS.length]
  ) as string;
  const startNs = nowNs - DAY_NS + (DAY_NS * BigInt(i)) / BigInt(CALLS) + 1_000_000n;
  // Every 50th trace: the retry-loop story, one input sent three times and refused each time.
  const looping = trace % 50 === 0 && i % PER_TRACE < 3;
  const failing = looping || i % 10 === 0;
  const code = looping ? 'INVALID_INPUT' : (CODES[i % CODES.length] as string);
  const attributes: Record<string, string | number | boolean> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'gen_ai.conversation.id': `conv-${trace % 5000}`,
    // Spread like real call ids, so the call-id index is measured as it behaves with them.
    'gen_ai.tool.call.id': spreadCallId(i),
    'toolscope.schema.version': String(1 + (i % 2)),
    'toolscope.schema.hash': i % 2 ? 'a1b2c3d4e5f60718' : '98dc0f2db7409f36',
    'toolscope.attempt': 1,
    'toolscope.effect': 'read',
    'toolscope.partial_effect': false,
    'toolscope.input.hash': looping ? hex(trace, 16) : hex((i * 2654435761) >>> 0, 16),
    'toolscope.input.shape': 'customerId:string',
    // Result sizes spread over two orders of magnitude, so each rollup row holds many size buckets.
    'toolscope.output.bytes': 100 + ((i * 7919) % 5000),
    'toolscope.output.tokens': Math.floor((100 + ((i * 7919) % 5000)) / 3.3),
  };
  // Three MCP clients (one in two versions) and a quarter of the traces from a client that names none.
  const client = CLIENTS[trace % CLIENTS.length];
  if (client) {
    attributes['toolscope.mcp.client.name'] = client[0];
    attributes['toolscope.mcp.client.version'] = client[1];
  }
  if (failing)
    Object.assign(attributes, {
      'error.type': code,
      'toolscope.error.code': code,
      'toolscope.retryable': false,
    });
  return {
    traceId: hex(trace + 1, 32),
    spanId: hex(i + 1, 16),
    parentSpanId: null,
    name: `execute_tool ${tool}`,
    kind: 1,
    startNs,
    endNs: startNs + BigInt(1 + (i % 200)) * 100_000n,
    statusCode: failing ? 2 : 0,
    statusMessage: '',
    attributes,
    events: [],
    links: [],
    resource,
    scopeName: '@toolscope/instrument',
    scopeVersion: '0.1.0',
    truncatedKeys: [],
    droppedAttributes: 0,
  };
}

const t0 = Date.now();
const storage = await openStorage(db);
const BATCH = 6 * 1024;
for (let i = 0; i < CALLS; i += BATCH) {
  const batch: NormalizedSpan[] = [];
  for (let j = i; j < Math.min(CALLS, i + BATCH); j++) batch.push(span(j));
  await storage.write(processBatch(batch));
}
await storage.close();
console.log(
  `bench:query  node ${process.version}  ${storage.backend}  ${CALLS.toLocaleString('en-US')} tool calls over 24 h loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s (load ${loadavg()[0]?.toFixed(1)})`,
);

const collector = await startCollector({ db, port: 0 });
async function timeIt(label: string, path: string, runs: number, target?: number): Promise<void> {
  await (await fetch(`${collector.url}${path}`)).arrayBuffer(); // warm caches and JIT once
  const times: number[] = [];
  let bytes = 0;
  for (let r = 0; r < runs; r++) {
    const s = process.hrtime.bigint();
    const res = await fetch(`${collector.url}${path}`);
    bytes = (await res.arrayBuffer()).byteLength;
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? Number.NaN;
  const suffix = target === undefined ? '' : `   (target ≤ ${target} ms)`;
  console.log(
    `  ${label.padEnd(44)} median ${median.toFixed(1).padStart(7)} ms  max ${(times.at(-1) ?? 0).toFixed(1).padStart(7)} ms  ${bytes} B  load ${loadavg()[0]?.toFixed(1)}${suffix}`,
  );
}
await timeIt('GET /api/tools (24 h, 8 tools)', '/api/tools?since=24h', 21, 100);
await timeIt(
  'GET /api/traces/:id (one trace, 6 spans)',
  `/api/traces/${hex(Math.floor(CALLS / PER_TRACE / 2), 32)}`,
  51,
  5,
);
await timeIt('GET /api/calls?tool=get_order&limit=100', '/api/calls?tool=get_order&limit=100', 21);
await timeIt(
  'GET /api/calls?code=INVALID_INPUT&limit=100',
  '/api/calls?code=INVALID_INPUT&limit=100',
  21,
);
await timeIt('GET /api/conversations/:id', '/api/conversations/conv-42', 11);
await timeIt('GET /api/flags (24 h)', '/api/flags?since=24h', 11, 500);
// The dashboard's own queries.
await timeIt('GET /api/timeseries (24 h, 60 steps)', '/api/timeseries?since=24h', 21, 100);
await timeIt('GET /api/tools/get_order (24 h)', '/api/tools/get_order?since=24h', 21, 100);
await timeIt('GET /api/tools?client=cursor (24 h)', '/api/tools?since=24h&client=cursor', 21, 100);
await timeIt(
  'GET /api/timeseries?client=cursor (24 h)',
  '/api/timeseries?since=24h&client=cursor',
  21,
  100,
);
// One client's calls: read newest first until the page is full, so a client that made none reads the range.
await timeIt('GET /api/calls?client=cursor&limit=100', '/api/calls?client=cursor&limit=100', 21);
await timeIt('GET /api/calls?client=nobody (24 h)', '/api/calls?since=24h&client=nobody', 5);
await timeIt(
  'GET /api/calls?errors=true&tool=get_order',
  '/api/calls?errors=true&tool=get_order&limit=20',
  21,
);
await timeIt('GET /api/search?q=<trace id>', `/api/search?q=${hex(7, 32)}`, 21, 100);
await timeIt('GET /api/search?q=get (tools, codes)', '/api/search?q=get', 21, 100);
await timeIt('GET /api/search?q=conv-12 (conversation prefix)', '/api/search?q=conv-12', 21, 50);
await timeIt('GET /api/search?q=nv-12 (conversation substring)', '/api/search?q=nv-12', 21, 50);
await timeIt(
  'GET /api/search?q=<call id>',
  `/api/search?q=${spreadCallId(Math.floor(CALLS / 2))}`,
  21,
  100,
);
// Call ids by prefix (≤ 50 ms on 1M calls): a few characters past the vendor's "call_", a prefix
// every call has (stops at the newest slots), and one no call has (reads every slot of the week).
await timeIt(
  'GET /api/search?q=<call id prefix, 9 chars>',
  `/api/search?q=${spreadCallId(Math.floor(CALLS / 5)).slice(0, 9)}`,
  21,
  50,
);
await timeIt('GET /api/search?q=call_ (every call)', '/api/search?q=call_', 21, 50);
await timeIt('GET /api/search?q=call_~ (no call)', '/api/search?q=call_~', 21, 50);
await timeIt(
  'GET /api/calls?callId=<call id>',
  `/api/calls?since=24h&callId=${spreadCallId(Math.floor(CALLS / 3))}`,
  21,
);
// Ingest while flags are computed: the reads must not hold the thread that acknowledges batches.
const probe = JSON.stringify({
  resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [] }] }],
});
const waits: number[] = [];
for (let r = 0; r < 11; r++) {
  const flags = fetch(`${collector.url}/api/flags?since=24h`).then((res) => res.arrayBuffer());
  await new Promise((resolve) => setTimeout(resolve, 2));
  const s = process.hrtime.bigint();
  const res = await fetch(`${collector.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: probe,
  });
  await res.arrayBuffer();
  waits.push(Number(process.hrtime.bigint() - s) / 1e6);
  await flags;
}
waits.sort((a, b) => a - b);
console.log(
  `  POST /v1/traces while /api/flags runs           median ${(waits[5] ?? 0).toFixed(1).padStart(7)} ms  max ${(waits.at(-1) ?? 0).toFixed(1).padStart(7)} ms`,
);
await collector.close();

// Bytes on disk per call, and retention: steps of 200 traces deleted from the oldest hour, each timed (a step
// holds its locks for that long).
const reopened = await openStorage(db);
const bytes = await storeBytes(db);
console.log(
  `  stored size                                  ${(bytes / 2 ** 20).toFixed(0).padStart(7)} MiB  ${(bytes / CALLS).toFixed(0)} B per call`,
);
const steps: number[] = [];
for (let r = 0; r < 10; r++) {
  const s = process.hrtime.bigint();
  await reopened.deleteBefore(nowNs - DAY_NS + 3_600_000_000_000n, 200);
  steps.push(Number(process.hrtime.bigint() - s) / 1e6);
}
steps.sort((a, b) => a - b);
console.log(
  `  retention step (200 traces, 1,200 calls)       median ${(steps[5] ?? 0).toFixed(1).padStart(7)} ms  max ${(steps.at(-1) ?? 0).toFixed(1).padStart(7)} ms`,
);
await reopened.close();
rmSync(dir, { recursive: true, force: true });

/** The database file with its WAL (SQLite), or the size of the database (PostgreSQL). */
async function storeBytes(where: string): Promise<number> {
  if (!isPostgresUrl(where)) {
    const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    return size(where) + size(`${where}-wal`);
  }
  const client = new pg.Client(where);
  await client.connect();
  try {
    const r = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
