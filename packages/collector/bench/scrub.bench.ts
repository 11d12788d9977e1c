// `pnpm --filter @toolscope/collector bench:scrub`: what the collector's content rules cost per span
// since issue 48 (every span's secrets masked, not only other instrumentations' tool content) against the rules
// before it (content-policy.ts read from git at BASELINE_REV, default 443c016) and against decoding the same
// spans from protobuf, in the same rounds: the bench:ingest workload (8-span agent traces, 6 tool calls each),
// and the same with an LLM span whose prompt is 2 KB of prose. CPU time, with the load average; asserts nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { applyContentPolicy, defaultContentPolicy } from '../src/ingest/content-policy.js';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { makeSpans } from './spans.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const REV = process.env.BASELINE_REV ?? '443c016';
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
type Apply = typeof applyContentPolicy;

/** The content rules as they were at REV, their relative imports pointed at today's modules. */
async function loadBefore(): Promise<{ apply: Apply; dispose: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'content-policy-before-'));
  const text = execFileSync(
    'git',
    ['show', `${REV}:packages/collector/src/ingest/content-policy.ts`],
    {
      cwd: SRC,
      encoding: 'utf8',
    },
  ).replaceAll("from '../", `from '${SRC}`);
  writeFileSync(join(dir, 'content-policy.ts'), text);
  const module = (await import(join(dir, 'content-policy.ts'))) as { applyContentPolicy: Apply };
  return { apply: module.applyContentPolicy, dispose: () => rmSync(dir, { recursive: true }) };
}

/** The workload's traces, each with a chat span carrying a prompt and a completion of prose. */
function withPrompts(traces: number) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('openinference');
  const prose =
    'The customer asked about order 4471 shipped from Lisbon on Tuesday; the courier said the parcel is at the depot. ';
  for (let t = 0; t < traces; t++) {
    const root = tracer.startSpan('agent.turn');
    const span = tracer.startSpan(
      'ChatCompletion',
      {
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': prose.repeat(18),
          'llm.output_messages.0.message.content': prose.repeat(4),
          'llm.token_count.prompt': 512,
        },
      },
      trace.setSpan(context.active(), root),
    );
    span.end();
    root.end();
  }
  return [...makeSpans(traces), ...exporter.getFinishedSpans()];
}

/** This process's CPU time in µs (user and system): steadier than the clock on a machine others load. */
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const decodeAll = (body: Uint8Array, reps: number): NormalizedSpan[] => {
  const spans: NormalizedSpan[] = [];
  for (let i = 0; i < reps; i++) {
    const decoded = decodeProtobuf(body);
    if (!decoded.ok) throw new Error(decoded.message);
    spans.push(...decoded.batch.spans);
  }
  return spans;
};
/** CPU µs per span of `apply` over spans decoded for it alone. */
function rulesPerSpan(body: Uint8Array, apply: Apply, reps: number): number {
  const spans = decodeAll(body, reps);
  const policy = defaultContentPolicy();
  const start = cpu();
  for (const span of spans) apply(span, policy);
  return (cpu() - start) / spans.length;
}
function decodePerSpan(body: Uint8Array, reps: number): number {
  const start = cpu();
  const spans = decodeAll(body, reps).length;
  return (cpu() - start) / spans;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (n: number) => n.toFixed(2).padStart(6);

const before = await loadBefore();
console.log(`\nbench scrub  ${ROUNDS} interleaved rounds, median CPU µs per span, baseline ${REV}`);
for (const [label, spans] of [
  ['bench:ingest workload', makeSpans(125)],
  ['with 2 KB prompts', withPrompts(100)],
] as const) {
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error('no body');
  const decode: number[] = [];
  const now: number[] = [];
  const then: number[] = [];
  for (let r = -1; r < ROUNDS; r++) {
    const d = decodePerSpan(body, 40);
    const n = rulesPerSpan(body, applyContentPolicy, 40);
    const t = rulesPerSpan(body, before.apply, 40);
    if (r < 0) continue; // warm-up
    decode.push(d);
    now.push(n);
    then.push(t);
  }
  const d = median(decode);
  const n = median(now);
  const t = median(then);
  console.log(
    `  ${label.padEnd(22)} decode ${fmt(d)}  rules now ${fmt(n)}  before ${fmt(t)}  added ${fmt(n - t)} = ${((n - t) / d).toFixed(2)} × decode   load ${loadavg()[0]?.toFixed(2)}`,
  );
}
before.dispose();
