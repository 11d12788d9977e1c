// Realistic span batches for the benchmarks: agent traces of 8 spans, 6 of them tool calls with the full
// Toolscope attribute set, serialized by the real OTLP protobuf serializer.

import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export const TOOLS = [
  'get_order',
  'search_docs',
  'create_ticket',
  'catalogue_list',
  'order_intent',
  'refund',
  'lookup_user',
  'send_email',
];
export const CODES = ['INVALID_INPUT', 'RETRYABLE', 'REJECTED', 'INVALID_OUTPUT', 'FAILED'];

/** A call id spread like real ones (they are random), unique per `n`: sequential ids would hide index costs. */
export function spreadCallId(n: number): string {
  return `call_${((n * 2654435761) >>> 0).toString(36)}${n.toString(36)}`;
}

export function makeSpans(traces: number, seed = 1): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bench-agent', 'service.version': '1.0.0' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('@toolscope/instrument', '0.1.0');
  let n = seed;
  for (let t = 0; t < traces; t++) {
    const root = tracer.startSpan('agent.turn', {
      attributes: { 'gen_ai.conversation.id': `conv-${t % 997}` },
    });
    const ctx = trace.setSpan(context.active(), root);
    const llm = tracer.startSpan(
      'chat gpt',
      { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt' } },
      ctx,
    );
    llm.end();
    for (let i = 0; i < 6; i++) {
      n++;
      const tool = TOOLS[n % TOOLS.length] as string;
      const failing = n % 10 === 0;
      const code = CODES[n % CODES.length] as string;
      const span = tracer.startSpan(
        `execute_tool ${tool}`,
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': tool,
            'gen_ai.tool.call.id': spreadCallId(n),
            'gen_ai.conversation.id': `conv-${t % 997}`,
            'toolscope.schema.version': String(1 + (n % 2)),
            'toolscope.schema.hash': n % 2 ? 'a1b2c3d4e5f60718' : '98dc0f2db7409f36',
            'toolscope.attempt': 1 + (n % 3 === 0 ? 1 : 0),
            'toolscope.effect': n % 5 === 0 ? 'write' : 'read',
            'toolscope.partial_effect': false,
            'toolscope.input.hash': (n * 2654435761).toString(16).padStart(16, '0').slice(-16),
            'toolscope.input.shape': 'customerId:string,includeHistory:boolean',
            // What the instrument now sets on every call.
            'toolscope.output.bytes': 100 + ((n * 7919) % 5000),
            'toolscope.output.tokens': Math.floor((100 + ((n * 7919) % 5000)) / 3.3),
            ...(failing
              ? {
                  'error.type': code,
                  'toolscope.error.code': code,
                  'toolscope.retryable': code === 'RETRYABLE',
                  'toolscope.validation.issues': JSON.stringify([
                    {
                      path: 'customerId',
                      code: 'invalid_type',
                      message: 'Invalid input: expected string, received number',
                    },
                  ]),
                }
              : {}),
          },
        },
        ctx,
      );
      span.end();
    }
    root.end();
  }
  return exporter.getFinishedSpans();
}

/** Protobuf ExportTraceServiceRequest bodies of `size` spans each. */
export function protobufBatches(spans: ReadableSpan[], size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < spans.length; i += size) {
    const body = ProtobufTraceSerializer.serializeRequest(spans.slice(i, i + size));
    if (body) out.push(body);
  }
  return out;
}
