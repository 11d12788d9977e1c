// The model-call dialects, as data beside the tool-call table (dialects.ts): how each instrumentation marks a
// span that is one request to a language model, and where it keeps the provider, model, token usage and
// finish reason. The first entry that matches wins; the AI SDK's outer `ai.generateText` span (its usage is the
// sum of its steps) is not a model call, only its `doGenerate` / `doStream` steps are.
import type { Attributes, DialectSpan } from './dialects.js';

export const MODEL_CALL_SOURCES = ['ai-sdk', 'openllmetry', 'openinference', 'gen_ai'] as const;
export type ModelCallSource = (typeof MODEL_CALL_SOURCES)[number];

export type ModelDialect = {
  source: ModelCallSource;
  matches: (span: DialectSpan) => boolean;
  /** Attributes holding each field, first present wins. */
  system: readonly string[];
  model: readonly string[];
  inputTokens: readonly string[];
  outputTokens: readonly string[];
  /** A string, or a list of strings (the first is taken). */
  finishReason: readonly string[];
};

const oneOf = (a: Attributes, key: string, values: ReadonlySet<string>) => {
  const v = a[key];
  return typeof v === 'string' && values.has(v.toLowerCase());
};

const AI_SDK_MODEL_STEPS = new Set([
  'ai.generatetext.dogenerate',
  'ai.streamtext.dostream',
  'ai.generateobject.dogenerate',
  'ai.streamobject.dostream',
]);
const OPENLLMETRY_LLM_TYPES = new Set(['chat', 'completion']);
const GEN_AI_MODEL_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content']);
const LLM = new Set(['llm']);

const GEN_AI_MODEL = ['gen_ai.response.model', 'gen_ai.request.model'];

export const MODEL_DIALECTS: readonly ModelDialect[] = [
  {
    // Vercel AI SDK 5 and 6: one span per model request, `ai.operationId` naming the step.
    source: 'ai-sdk',
    matches: (s) => oneOf(s.attributes, 'ai.operationId', AI_SDK_MODEL_STEPS),
    system: ['gen_ai.system', 'ai.model.provider'],
    model: [...GEN_AI_MODEL, 'ai.response.model', 'ai.model.id'],
    inputTokens: ['ai.usage.inputTokens', 'ai.usage.promptTokens', 'gen_ai.usage.input_tokens'],
    outputTokens: [
      'ai.usage.outputTokens',
      'ai.usage.completionTokens',
      'gen_ai.usage.output_tokens',
    ],
    finishReason: ['ai.response.finishReason', 'gen_ai.response.finish_reasons'],
  },
  {
    // OpenLLMetry / Traceloop provider instrumentations: `llm.request.type` is chat or completion.
    source: 'openllmetry',
    matches: (s) => oneOf(s.attributes, 'llm.request.type', OPENLLMETRY_LLM_TYPES),
    system: ['gen_ai.provider.name', 'gen_ai.system'],
    model: GEN_AI_MODEL,
    inputTokens: [
      'gen_ai.usage.prompt_tokens',
      'gen_ai.usage.input_tokens',
      'llm.usage.prompt_tokens',
    ],
    outputTokens: [
      'gen_ai.usage.completion_tokens',
      'gen_ai.usage.output_tokens',
      'llm.usage.completion_tokens',
    ],
    finishReason: ['gen_ai.completion.0.finish_reason', 'gen_ai.response.finish_reasons'],
  },
  {
    // OpenInference (Arize Phoenix): `openinference.span.kind = LLM`.
    source: 'openinference',
    matches: (s) => oneOf(s.attributes, 'openinference.span.kind', LLM),
    system: ['llm.provider', 'llm.system'],
    model: ['llm.model_name'],
    inputTokens: ['llm.token_count.prompt'],
    outputTokens: ['llm.token_count.completion'],
    finishReason: [],
  },
  {
    // OTel GenAI semantic conventions: inference spans by operation name.
    source: 'gen_ai',
    matches: (s) => oneOf(s.attributes, 'gen_ai.operation.name', GEN_AI_MODEL_OPERATIONS),
    system: ['gen_ai.provider.name', 'gen_ai.system'],
    model: GEN_AI_MODEL,
    inputTokens: ['gen_ai.usage.input_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens'],
    finishReason: ['gen_ai.response.finish_reasons'],
  },
];
