// `tsx --conditions=@toolscope/source bench/scrub.bench.ts`: what the collector's content rules (every span's
// secrets masked, issue 48) cost per span, against decoding the same spans from protobuf in the same run: the
// bench:ingest workload (8-span agent traces, 6 tool calls each) and the same traces with an LLM span whose
// prompt is 2 KB of prose. Prints µs per span and the ratio with the load average; asserts nothing.
import { loadavg } from 'node:os';
import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { applyContentPolicy, defaultContentPolicy } from '../src/ingest/content-policy.js';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import { makeSpans } from './spans.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const policy = defaultContentPolicy();

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

function perSpan(body: Uint8Array, scrub: boolean): number {
  const decoded = decodeProtobuf(body);
  if (!decoded.ok) throw new Error(decoded.message);
  const spans = decoded.batch.spans;
  if (!scrub) return spans.length;
  for (const span of spans) applyContentPolicy(span, policy);
  return spans.length;
}

function timed(body: Uint8Array, scrub: boolean, reps: number): number {
  let spans = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) spans += perSpan(body, scrub);
  return Number(process.hrtime.bigint() - start) / 1000 / spans;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

console.log(`\nbench scrub  ${ROUNDS} interleaved rounds, median µs per span`);
for (const [label, spans] of [
  ['bench:ingest workload', makeSpans(125)],
  ['with 2 KB prompts', withPrompts(100)],
] as const) {
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) throw new Error('no body');
  timed(body, true, 20);
  timed(body, false, 20);
  const decode: number[] = [];
  const both: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    decode.push(timed(body, false, 20));
    both.push(timed(body, true, 20));
  }
  const d = median(decode);
  const rules = median(both) - d;
  console.log(
    `  ${label.padEnd(24)} decode ${d.toFixed(2)}  content rules ${rules.toFixed(2)}  ratio ${(rules / d).toFixed(2)}   load ${loadavg()[0]?.toFixed(2)}`,
  );
}
