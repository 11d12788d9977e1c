// A foreign agent's trace reads as calls with the model's steps between them, for every dialect: spans made
// by the real packages (the AI SDK with its mock model; OpenLLMetry's and OpenInference's OpenAI
// instrumentations around a real OpenAI client talking to a loopback server that answers as the API does;
// OpenLLMetry's MCP client instrumentation; OpenInference's traceTool), sent by the real OTLP exporter to a
// running collector, then read through the API and on the trace page in Chromium.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { traceTool } from '@arizeai/openinference-core';
import { OpenAIInstrumentation as OpenInferenceOpenAI } from '@arizeai/openinference-instrumentation-openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import type { CallsResponse, SpanOut, TraceResponse } from '@toolscope/collector/schemas';
import { McpInstrumentation } from '@traceloop/instrumentation-mcp';
import { OpenAIInstrumentation as TraceloopOpenAI } from '@traceloop/instrumentation-openai';
import { generateText, stepCountIs, tool } from 'ai6';
import { MockLanguageModelV3 } from 'ai6/test';
import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { launch, watchedPage } from '../../packages/dashboard/test/browser.js';

let collector: Collector;
let provider: BasicTracerProvider;
let openaiServer: Server;
let openai: OpenAI;
let browser: Browser | undefined;
const contextManager = new AsyncLocalStorageContextManager();
/** Trace ids by dialect, filled by the tests that make them and read by the browser test. */
const traces = new Map<string, string>();

/** Chat completions as the OpenAI API answers them: a fixed usage, so the test knows the tokens. */
function startOpenAiServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const asked = JSON.parse(body) as { model: string };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_767_225_600,
          model: `${asked.model}-2024-07-18`,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'calling the tool' },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 120, completion_tokens: 17, total_tokens: 137 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  collector = await startCollector({
    db: ':memory:',
    port: 0,
    hashKey: 'foreign-traces-key-0123456789',
  });
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'foreign-agent' }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
  openaiServer = await startOpenAiServer();
  const { port } = openaiServer.address() as AddressInfo;
  openai = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test', maxRetries: 0 });
});

afterAll(async () => {
  await browser?.close();
  await provider?.shutdown();
  await collector?.close();
  await new Promise((resolve) => openaiServer?.close(resolve));
  contextManager.disable();
});

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${collector.url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

const spansOf = async (traceId: string) =>
  (await api<TraceResponse>(`/api/traces/${traceId}`)).spans;

/** The trace's tool calls and model steps in start order, as `tool CODE` and `model NAME in/out`. */
function reading(spans: SpanOut[]): string[] {
  return spans
    .filter((s) => s.call || s.modelCall)
    .map((s) =>
      s.call
        ? `tool ${s.call.tool} ${s.call.code ?? 'OK'}`
        : `model ${s.modelCall?.model} ${s.modelCall?.inputTokens}/${s.modelCall?.outputTokens}`,
    );
}

/** Resolves once Date.now() has moved on, so the next span's start (whole milliseconds) is later. */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Runs `fn` under a root span of its own, so what it calls lands in one trace; returns the trace id. */
async function inRootSpan(name: string, fn: () => Promise<void>): Promise<string> {
  const tracer = provider.getTracer('agent');
  return tracer.startActiveSpan(name, async (root) => {
    try {
      await fn();
    } finally {
      root.end();
    }
    return root.spanContext().traceId;
  });
}

describe('foreign agents read as calls and model steps', () => {
  it('AI SDK: ai.toolCall spans are calls with codes, doGenerate spans are model steps', async () => {
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step++;
        const call = step <= 2;
        return {
          content: call
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: `call-${step}`,
                  toolName: 'weather_lookup',
                  input: JSON.stringify({ city: 'Oslo' }),
                },
              ]
            : [{ type: 'text' as const, text: 'no weather today' }],
          finishReason: {
            unified: call ? ('tool-calls' as const) : ('stop' as const),
            raw: undefined,
          },
          usage: {
            inputTokens: { total: 100 * step, noCache: 100 * step, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 10, text: 10, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    await generateText({
      model,
      prompt: 'weather in Oslo?',
      stopWhen: stepCountIs(5),
      tools: {
        weather_lookup: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async (): Promise<{ tempC: number }> => {
            throw new Error('weather backend down');
          },
        }),
      },
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai') },
    });
    await provider.forceFlush();
    const { calls } = await api<CallsResponse>('/api/calls?tool=weather_lookup');
    expect(calls).toHaveLength(2);
    // A failed foreign call has a code, the same one /api/tools counts it under.
    for (const c of calls) expect(c.code).toBe('ERROR');
    const traceId = calls[0]?.traceId ?? '';
    traces.set('ai-sdk', traceId);
    const spans = await spansOf(traceId);
    expect(reading(spans)).toEqual([
      'model mock-model-id 100/10',
      'tool weather_lookup ERROR',
      'model mock-model-id 200/10',
      'tool weather_lookup ERROR',
      'model mock-model-id 300/10',
    ]);
    const step1 = spans.find((s) => s.modelCall)?.modelCall;
    expect(step1).toMatchObject({ system: 'mock-provider', finishReason: 'tool-calls' });
    // The span's call is the /api/calls item for the same span, field for field.
    const listed = calls.find((c) => c.spanId === spans.find((s) => s.call)?.spanId);
    const {
      arguments: _a,
      result: _r,
      replay: _p,
      failedAttempts: _f,
      joinedTo,
      joinedToTraceId,
      ...asListed
    } = spans.find((s) => s.call)?.call ?? {};
    expect(asListed).toEqual(listed);
    // A whole call of one span, no part of another's.
    expect(joinedTo).toBeNull();
    expect(joinedToTraceId).toBeNull();
  });

  it('OpenInference: a TOOL span between two LLM spans', async () => {
    const instrumentation = new OpenInferenceOpenAI();
    instrumentation.setTracerProvider(provider);
    instrumentation.manuallyInstrument({ OpenAI } as never);
    const checkStock = traceTool(async (input: { sku: string }) => ({ sku: input.sku, stock: 0 }), {
      name: 'check_stock',
      tracer: provider.getTracer('oi'),
    });
    const traceId = await inRootSpan('oi-agent', async () => {
      await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'stock?' }],
      });
      await checkStock({ sku: 'sku-9' });
      await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'and?' }],
      });
    });
    instrumentation.disable();
    await provider.forceFlush();
    traces.set('openinference', traceId);
    const spans = await spansOf(traceId);
    expect(reading(spans)).toEqual([
      'model gpt-4o-mini-2024-07-18 120/17',
      'tool check_stock OK',
      'model gpt-4o-mini-2024-07-18 120/17',
    ]);
    expect(spans.find((s) => s.modelCall)?.modelCall?.source).toBe('openinference');
  });

  it('OpenLLMetry: a client-only MCP agent, its failed call coded, its chat completions as model steps', async () => {
    const instrumentation = new TraceloopOpenAI();
    instrumentation.setTracerProvider(provider);
    instrumentation.manuallyInstrument(OpenAI);
    const mcp = new McpInstrumentation({ traceContent: true });
    mcp.setTracerProvider(provider);
    mcp.manuallyInstrument({ Client });
    const server = new McpServer({ name: 'docs', version: '1' });
    server.registerTool('search_docs', { inputSchema: { q: z.string() } }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'index unavailable' }],
    }));
    const client = new Client({ name: 'agent', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    // Connected inside the agent's span: the instrumentation's session span, the parent of its tool spans,
    // starts at connect.
    const traceId = await inRootSpan('ol-agent', async () => {
      await Promise.all([server.connect(b), client.connect(a)]);
      await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'find' }],
      });
      // The SDK stamps a span's start from Date.now(), in whole milliseconds, and a tie is read parent first:
      // the tool span (under the session span) would come after a model step started in its millisecond.
      await nextMillisecond();
      await client.callTool({ name: 'search_docs', arguments: { q: 'otel' } });
      await nextMillisecond();
      await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'again' }],
      });
    });
    await client.close();
    mcp.disable();
    await provider.forceFlush();
    traces.set('openllmetry', traceId);
    const spans = await spansOf(traceId);
    const lines = reading(spans);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('model gpt-4o-2024-07-18 120/17');
    expect(lines[1]).toMatch(/^tool search_docs (?!OK)/);
    expect(lines[2]).toBe('model gpt-4o-2024-07-18 120/17');
    const call = spans.find((s) => s.call)?.call;
    expect(call).toMatchObject({ side: 'client', source: 'openllmetry', paired: false });
    const { calls } = await api<CallsResponse>('/api/calls?tool=search_docs');
    expect(calls.map((c) => c.code)).toEqual([call?.code]);
    // Traceloop's OpenAI instrumentation (0.27) writes the OTel GenAI conventions (`gen_ai.operation.name =
    // chat`); its older `llm.request.type` spans are read by the openllmetry entry (calls/model-call.test.ts).
    expect(spans.find((s) => s.modelCall)?.modelCall).toMatchObject({
      source: 'gen_ai',
      system: 'openai',
    });
  });

  it('each trace page tells the story in Chromium: the calls, and the model steps between them', async () => {
    browser = await launch();
    const w = await watchedPage(browser);
    const expected: Record<string, { calls: string[]; models: number }> = {
      'ai-sdk': { calls: ['weather_lookup', 'weather_lookup'], models: 3 },
      openinference: { calls: ['check_stock'], models: 2 },
      openllmetry: { calls: ['search_docs'], models: 2 },
    };
    for (const [dialect, want] of Object.entries(expected)) {
      const traceId = traces.get(dialect);
      expect(traceId, `${dialect} trace made by its test`).toBeDefined();
      await w.page.goto(`${collector.url}/#/traces/${traceId}`);
      const story = w.page.getByRole('list', { name: 'tool calls in order' });
      await story.waitFor();
      const items = story.locator(':scope > li');
      const kindsNow = () =>
        items.evaluateAll((els) =>
          els.map((el) =>
            el.classList.contains('model-step')
              ? 'model'
              : (el.querySelector('b.tool')?.textContent ?? '?'),
          ),
        );
      // The page changes route in place: the story may still be the previous trace's, or half drawn, when the
      // list first shows. Read it until it is this trace's (a clean-clone CI run once read it half drawn).
      await expect
        .poll(async () => (await kindsNow()).filter((k) => k !== 'model'), { message: dialect })
        .toEqual(want.calls);
      const kinds = await kindsNow();
      // Calls and model steps alternate, model first: what the agent decided, then what it did.
      expect(
        kinds.filter((k) => k === 'model'),
        dialect,
      ).toHaveLength(want.models);
      expect(kinds[0], dialect).toBe('model');
      await expect
        .poll(() => story.locator('li.model-step').first().textContent())
        .toMatch(/in \/ .* out tokens/);
      expect(await w.page.getByText('No tool calls').count(), dialect).toBe(0);
    }
    expect(w.errors).toEqual([]);
  });
});
