// `pnpm bench:recovery [-- --db postgres://…]`: what GET /api/tools/:name/recovery
// and GET /api/recovery cost over HTTP against the tool page (GET /api/tools/:name) on the same store, as a ratio
// measured in one run. BENCH_CALLS tool calls (default 200,000) over the last 24 h in conversations of 30
// calls, every 10th failing with a captured envelope (the message recovery reads from the span). Prints numbers
// with the load average beside them; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStorage, startCollector } from '../src/index.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { processBatch } from '../src/process/batch.js';
import { CODES, TOOLS } from './spans.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);
const PER_TRACE = 6;
const PER_CONVERSATION = 30;
const DAY_NS = 86_400_000_000_000n;
const { values: args } = parseArgs({ options: { db: { type: 'string' } } });
const dir = mkdtempSync(join(tmpdir(), 'toolscope-recovery-'));
const db = args.db ?? join(dir, 'recovery.db');
const nowNs = BigInt(Date.now()) * 1_000_000n;
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

function span(i: number): NormalizedSpan {
  const tool = TOOLS[(i * 7) % TOOLS.length] as string;
  const failing = i % 10 === 0;
  const code = CODES[(i / 10) % CODES.length] as string;
  const startNs = nowNs - DAY_NS + (DAY_NS * BigInt(i)) / BigInt(CALLS) + 1_000_000n;
  const attributes: Record<string, string | number | boolean> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'gen_ai.conversation.id': `conv-${Math.floor(i / PER_CONVERSATION)}`,
    'toolscope.schema.version': '1',
    'toolscope.schema.hash': 'a1b2c3d4e5f60718',
    'toolscope.attempt': 1,
    'toolscope.effect': 'read',
    'toolscope.partial_effect': false,
    'toolscope.input.hash': hex((i * 2654435761) >>> 0, 16),
    'toolscope.input.shape': 'customerId:string',
  };
  if (failing)
    Object.assign(attributes, {
      'error.type': code,
      'toolscope.error.code': code,
      'toolscope.retryable': false,
      'gen_ai.tool.call.result': JSON.stringify({
        ok: false,
        code,
        message: `${tool} refused the request (${code}); repeating the same call will not help.`,
        retryable: false,
        partialEffect: false,
        attempt: 1,
      }),
    });
  return {
    traceId: hex(Math.floor(i / PER_TRACE) + 1, 32),
    spanId: hex(i + 1, 16),
    parentSpanId: null,
    name: `execute_tool ${tool}`,
    kind: 1,
    startNs,
    endNs: startNs + 1_000_000n,
    statusCode: failing ? 2 : 0,
    statusMessage: '',
    attributes,
    events: [],
    links: [],
    resource: { 'service.name': 'bench-agent' },
    scopeName: '@toolscope/instrument',
    scopeVersion: '0.1.0',
    truncatedKeys: [],
    droppedAttributes: 0,
  };
}

const storage = await openStorage(db);
for (let i = 0; i < CALLS; i += 6144) {
  const batch: NormalizedSpan[] = [];
  for (let j = i; j < Math.min(CALLS, i + 6144); j++) batch.push(span(j));
  await storage.write(processBatch(batch));
}
await storage.close();
const collector = await startCollector({ db, port: 0 });

async function median(path: string, runs: number): Promise<number> {
  await (await fetch(`${collector.url}${path}`)).arrayBuffer();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const s = process.hrtime.bigint();
    await (await fetch(`${collector.url}${path}`)).arrayBuffer();
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] ?? Number.NaN;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const reference = await median('/api/tools/get_order?since=24h', 11);
for (const [label, path] of [
  ['GET /api/tools/get_order/recovery (24 h)', '/api/tools/get_order/recovery?since=24h'],
  ['GET /api/recovery (24 h, every tool)', '/api/recovery?since=24h'],
]) {
  const ms = await median(path as string, 11);
  console.log(
    `${(label as string).padEnd(42)} ${(ms / reference).toFixed(2)} × the tool page (${ms.toFixed(1)} ms vs ${reference.toFixed(1)} ms)  load ${load()}`,
  );
}
await collector.close();
rmSync(dir, { recursive: true, force: true });
