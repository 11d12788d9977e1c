// Model-call recognition, dialect by dialect, from the attributes each instrumentation documents; and the
// spans that look like one but are not (the AI SDK's outer call, which sums its steps; a tool span).
import { describe, expect, it } from 'vitest';
import { type ModelCall, modelCallOf, modelTokens } from './model-call.js';

const span = (attributes: Record<string, unknown>, name = 'span') => ({
  attributes,
  name,
  scopeName: 'test',
});

const CASES: { name: string; attributes: Record<string, unknown>; want: ModelCall | null }[] = [
  {
    name: 'AI SDK doGenerate step',
    attributes: {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.provider': 'openai.chat',
      'ai.model.id': 'gpt-4o',
      'ai.response.model': 'gpt-4o-2024-08-06',
      'ai.usage.inputTokens': 812,
      'ai.usage.outputTokens': 40,
      'ai.response.finishReason': 'tool-calls',
    },
    want: {
      source: 'ai-sdk',
      system: 'openai.chat',
      model: 'gpt-4o-2024-08-06',
      inputTokens: 812,
      outputTokens: 40,
      finishReason: 'tool-calls',
    },
  },
  {
    name: 'AI SDK streamText step, usage under the older names',
    attributes: {
      'ai.operationId': 'ai.streamText.doStream',
      'gen_ai.system': 'anthropic.messages',
      'gen_ai.request.model': 'claude-sonnet-4',
      'ai.usage.promptTokens': 10,
      'ai.usage.completionTokens': 2,
    },
    want: {
      source: 'ai-sdk',
      system: 'anthropic.messages',
      model: 'claude-sonnet-4',
      inputTokens: 10,
      outputTokens: 2,
      finishReason: null,
    },
  },
  {
    name: 'AI SDK outer generateText: the sum of its steps, not a model call',
    attributes: { 'ai.operationId': 'ai.generateText', 'ai.usage.inputTokens': 900 },
    want: null,
  },
  {
    name: 'OpenLLMetry chat (llm.request.type), int64 tokens as strings',
    attributes: {
      'llm.request.type': 'chat',
      'gen_ai.system': 'OpenAI',
      'gen_ai.request.model': 'gpt-4',
      'gen_ai.response.model': 'gpt-4-0613',
      'gen_ai.usage.prompt_tokens': '1500',
      'gen_ai.usage.completion_tokens': '30',
      'gen_ai.completion.0.finish_reason': 'stop',
    },
    want: {
      source: 'openllmetry',
      system: 'OpenAI',
      model: 'gpt-4-0613',
      inputTokens: 1500,
      outputTokens: 30,
      finishReason: 'stop',
    },
  },
  {
    name: 'OpenInference LLM span',
    attributes: {
      'openinference.span.kind': 'LLM',
      'llm.provider': 'openai',
      'llm.model_name': 'gpt-4o-mini',
      'llm.token_count.prompt': 55,
      'llm.token_count.completion': 5,
    },
    want: {
      source: 'openinference',
      system: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 55,
      outputTokens: 5,
      finishReason: null,
    },
  },
  {
    name: 'OTel GenAI chat span, finish reasons as a list',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'aws.bedrock',
      'gen_ai.request.model': 'nova-pro',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['length', 'stop'],
    },
    want: {
      source: 'gen_ai',
      system: 'aws.bedrock',
      model: 'nova-pro',
      inputTokens: 7,
      outputTokens: 3,
      finishReason: 'length',
    },
  },
  {
    name: 'OTel GenAI execute_tool span: a tool call, not a model call',
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_order' },
    want: null,
  },
  {
    name: 'OpenInference TOOL span',
    attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search' },
    want: null,
  },
  {
    name: 'a count that is no count (negative, fractional) is unknown',
    attributes: {
      'gen_ai.operation.name': 'text_completion',
      'gen_ai.usage.input_tokens': -1,
      'gen_ai.usage.output_tokens': 2.5,
    },
    want: {
      source: 'gen_ai',
      system: null,
      model: null,
      inputTokens: null,
      outputTokens: null,
      finishReason: null,
    },
  },
];

describe('modelCallOf', () => {
  it.each(CASES)('$name', ({ attributes, want }) => {
    expect(modelCallOf(span(attributes))).toEqual(want);
  });

  it('counts what was not reported as 0 in a call’s tokens', () => {
    const m = modelCallOf(
      span({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 9 }),
    );
    expect(m && modelTokens(m)).toBe(9);
  });
});
