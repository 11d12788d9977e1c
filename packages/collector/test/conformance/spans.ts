// Tool-call spans built directly in the collector's model, for the conformance suite: each backend gets the
// same spans, so every difference in what it answers is a difference of the backend.
import type { NormalizedSpan } from '../../src/otlp/model.js';

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
export const traceIdOf = (n: number) => hex(n, 32);

export type CallSpec = {
  trace: number;
  span: number;
  tool?: string;
  /** Milliseconds before now. */
  agoMs?: number;
  durationMs?: number;
  code?: string;
  retryable?: boolean;
  input?: string;
  conversation?: string;
  callId?: string;
  version?: string;
  schemaHash?: string;
  kind?: number;
  issues?: string;
  /** The parent span's number in the same trace (a client span of the call, say). */
  parent?: number;
  /** toolscope.output.hash, and the result's approximate tokens. */
  outputHash?: string;
  resultTokens?: number;
  /** `toolscope proxy`'s span of the call. */
  proxy?: boolean;
};

export function callSpan(c: CallSpec): NormalizedSpan {
  const tool = c.tool ?? 'get_order';
  const startNs = (BigInt(Date.now() - (c.agoMs ?? 1000)) * 1_000_000n) as bigint;
  const attributes: NormalizedSpan['attributes'] = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'toolscope.schema.version': c.version ?? '1',
    'toolscope.schema.hash': c.schemaHash ?? 'aaaaaaaaaaaaaaaa',
    'toolscope.attempt': 1,
    'toolscope.effect': 'read',
    'toolscope.partial_effect': false,
    'toolscope.input.hash': c.input ?? hex(c.trace * 1000 + c.span, 16),
    'toolscope.input.shape': 'customerId:number',
  };
  if (c.conversation) attributes['gen_ai.conversation.id'] = c.conversation;
  if (c.callId) attributes['gen_ai.tool.call.id'] = c.callId;
  if (c.code) {
    attributes['error.type'] = c.code;
    attributes['toolscope.error.code'] = c.code;
    attributes['toolscope.retryable'] = c.retryable ?? false;
  }
  if (c.issues) attributes['toolscope.validation.issues'] = c.issues;
  if (c.outputHash) attributes['toolscope.output.hash'] = c.outputHash;
  if (c.proxy) attributes['toolscope.proxy'] = true;
  if (c.resultTokens !== undefined) attributes['toolscope.output.tokens'] = c.resultTokens;
  return {
    traceId: traceIdOf(c.trace),
    spanId: hex(c.trace * 1000 + c.span, 16),
    parentSpanId: c.parent === undefined ? null : hex(c.trace * 1000 + c.parent, 16),
    name: `execute_tool ${tool}`,
    kind: c.kind ?? 1,
    startNs,
    endNs: startNs + BigInt(Math.round((c.durationMs ?? 5) * 1e6)),
    statusCode: c.code ? 2 : 0,
    statusMessage: '',
    attributes,
    events: [],
    links: [],
    resource: { 'service.name': 'conformance' },
    scopeName: '@toolscope/instrument',
    scopeVersion: '0.1.0',
    truncatedKeys: [],
    droppedAttributes: 0,
  };
}

export const HOUR_NS = 3_600_000_000_000n;
export const nowNs = () => BigInt(Date.now()) * 1_000_000n;

/** A model call span (OTel GenAI `chat`) in a trace, with its token usage. */
export function modelSpan(m: {
  trace: number;
  span: number;
  agoMs: number;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
}): NormalizedSpan {
  const startNs = BigInt(Date.now() - m.agoMs) * 1_000_000n;
  return {
    ...callSpan({ trace: m.trace, span: m.span }),
    name: 'chat gpt-4o',
    kind: 3,
    startNs,
    endNs: startNs + BigInt(Math.round(m.durationMs * 1e6)),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': m.inputTokens,
      'gen_ai.usage.output_tokens': m.outputTokens,
    },
    scopeName: 'openai',
  };
}
