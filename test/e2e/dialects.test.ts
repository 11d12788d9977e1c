// Other instrumentations' tool spans, produced by the real npm packages (the Vercel AI SDK 5 and 6 with their
// mock language models, OpenLLMetry's MCP instrumentation on a real MCP client, OpenInference's traceTool)
// and sent by the real OTLP exporter to a running collector; read back through the API: calls, errors,
// sources, the loop the collector finds from its own input hashes, and the shapes drift compares.
import { traceTool } from '@arizeai/openinference-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import { instrumentMcpClient, instrumentMcpServer } from '@toolscope/instrument';
import { createHasher, outputHash } from '@toolscope/instrument/shared-rules';
import { McpInstrumentation } from '@traceloop/instrumentation-mcp';
import { generateText as generateText5, stepCountIs as stepCountIs5, tool as tool5 } from 'ai5';
import { MockLanguageModelV2 } from 'ai5/test';
import { generateText as generateText6, stepCountIs as stepCountIs6, tool as tool6 } from 'ai6';
import { MockLanguageModelV3 } from 'ai6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const HASH_KEY = 'dialects-test-hash-key-0123456789';
let collector: Collector;
let provider: BasicTracerProvider;
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  collector = await startCollector({ db: ':memory:', port: 0, hashKey: HASH_KEY });
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'foreign-agent' }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` })),
    ],
  });
});

afterAll(async () => {
  await provider?.shutdown();
  await collector?.close();
  contextManager.disable();
});

type ToolRow = {
  name: string;
  calls: number;
  errors: number;
  codes: Record<string, number>;
  sources: string[];
};
type CallRow = {
  tool: string;
  resultBytes: number | null;
  resultTokens: number | null;
  outputHash: string | null;
  code: string | null;
  source: string;
  side: string;
  inputHash: string | null;
  inputShape: string | null;
  conversationId: string | null;
  traceId: string;
};

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${collector.url}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}
const toolNamed = async (name: string) =>
  (await api<{ tools: ToolRow[] }>(`/api/tools?tool=${name}`)).tools[0];
const callsOf = async (name: string, extra = '') =>
  (await api<{ calls: CallRow[] }>(`/api/calls?tool=${name}${extra}`)).calls;

/** A model that asks for the same tool call on each of `steps` steps (the loop), then answers. */
function loopingGenerate(steps: number, toolName: string, input: object) {
  let step = 0;
  return () => {
    step++;
    const call = step <= steps;
    return {
      content: call
        ? [
            {
              type: 'tool-call' as const,
              toolCallId: `call-${step}`,
              toolName,
              input: JSON.stringify(input),
            },
          ]
        : [{ type: 'text' as const, text: 'done' }],
      finish: call ? ('tool-calls' as const) : ('stop' as const),
    };
  };
}

/** An AI SDK 6 mock model answering with `next`'s steps. */
function mockModelV3(next: ReturnType<typeof loopingGenerate>) {
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const r = next();
      return {
        content: r.content,
        finishReason: { unified: r.finish, raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

describe('other instrumentations, through the real exporter', () => {
  it('AI SDK 5: ai.toolCall spans become calls; three identical failing calls are an identical_retry', async () => {
    const next = loopingGenerate(3, 'lookup_weather', { city: 'Oslo', unit: 'C' });
    const model = new MockLanguageModelV2({
      doGenerate: async () => {
        const r = next();
        return {
          content: r.content,
          finishReason: r.finish,
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          warnings: [],
        };
      },
    });
    await generateText5({
      model,
      prompt: 'weather?',
      stopWhen: stepCountIs5(5),
      tools: {
        lookup_weather: tool5({
          description: 'Weather of a city',
          inputSchema: z.object({ city: z.string(), unit: z.string() }),
          execute: async (): Promise<{ tempC: number }> => {
            throw new Error('weather backend exploded for ops@example.com');
          },
        }),
      },
      experimental_telemetry: {
        isEnabled: true,
        tracer: provider.getTracer('ai'),
        metadata: { conversationId: 'conv-ai5' },
      },
    });
    await provider.forceFlush();
    const stats = await toolNamed('lookup_weather');
    expect(stats).toMatchObject({ calls: 3, errors: 3, codes: { ERROR: 3 }, sources: ['ai-sdk'] });
    const calls = await callsOf('lookup_weather', '&code=ERROR');
    expect(calls).toHaveLength(3);
    for (const c of calls) {
      expect(c).toMatchObject({ source: 'ai-sdk', side: 'server', conversationId: 'conv-ai5' });
      expect(c.inputHash).toMatch(/^[0-9a-f]{16}$/);
      expect(c.inputShape).toBe('city:string,unit:string');
      // The SDK's own exception event is the cause, its message redacted by the collector.
      expect(c).toMatchObject({
        exceptionType: 'Error',
        exceptionMessage: 'weather backend exploded for [REDACTED:email]',
      });
    }
    expect(new Set(calls.map((c) => c.inputHash)).size).toBe(1);
    const flags = await api<{ flags: { kind: string; tool: string; count: number }[] }>(
      '/api/flags?tool=lookup_weather',
    );
    expect(flags.flags.find((f) => f.kind === 'identical_retry')).toMatchObject({ count: 3 });
    // Capture is off at the collector: the arguments were hashed, then dropped.
    // So was the exception's stack trace (it names the server's files); its message stays, redacted.
    type Attrs = Record<string, unknown>;
    const trace = await api<{
      spans: { name: string; attributes: Attrs; events: { name: string; attributes: Attrs }[] }[];
    }>(`/api/traces/${calls[0]?.traceId}`);
    const span = trace.spans.find((s) => s.attributes['ai.toolCall.name'] === 'lookup_weather');
    expect(span?.attributes).not.toHaveProperty('ai.toolCall.args');
    expect(span?.attributes['toolscope.collector.content_dropped']).toEqual([
      'ai.toolCall.args',
      'exception.stacktrace',
    ]);
    const thrown = span?.events.find((e) => e.name === 'exception')?.attributes;
    expect(thrown).not.toHaveProperty('exception.stacktrace');
    expect(thrown?.['exception.message']).toBe('weather backend exploded for [REDACTED:email]');
  });

  it('AI SDK 6: a successful tool call is counted with its source', async () => {
    const model = mockModelV3(loopingGenerate(1, 'convert_currency', { amount: 10, from: 'EUR' }));
    await generateText6({
      model,
      prompt: 'convert',
      stopWhen: stepCountIs6(3),
      tools: {
        convert_currency: tool6({
          description: 'Currency conversion',
          inputSchema: z.object({ amount: z.number(), from: z.string() }),
          execute: async ({ amount }) => ({ amount: amount * 1.1, currency: 'USD' }),
        }),
      },
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai6') },
    });
    await provider.forceFlush();
    expect(await toolNamed('convert_currency')).toMatchObject({
      calls: 1,
      errors: 0,
      sources: ['ai-sdk'],
    });
    const [call] = await callsOf('convert_currency');
    expect(call?.inputShape).toBe('amount:number,from:string');
    // ai.toolCall.result is measured at ingest as the JSON text the SDK wrote, then dropped.
    expect(call?.resultBytes).toBe(
      Buffer.byteLength(JSON.stringify({ amount: 10 * 1.1, currency: 'USD' })),
    );
    expect(call?.resultTokens).toBeGreaterThan(5);
    // And hashed with the deployment's key, as the instrument package hashes its own results.
    expect(call?.outputHash).toBe(
      outputHash({ amount: 10 * 1.1, currency: 'USD' }, createHasher(HASH_KEY)),
    );
  });

  it('AI SDK 6: an agent that starts sending a new input shape shows it on the tool page (input drift)', async () => {
    const convert = tool6({
      description: 'Unit conversion',
      inputSchema: z.object({ value: z.number(), unit: z.string(), to: z.string().optional() }),
      execute: async ({ value }) => ({ value }),
    });
    for (const input of [
      { value: 1, unit: 'km' },
      { value: 2, unit: 'km' },
      { value: 3, unit: 'km', to: 'mi' },
    ])
      await generateText6({
        model: mockModelV3(loopingGenerate(1, 'convert_units', input)),
        prompt: 'convert',
        stopWhen: stepCountIs6(3),
        tools: { convert_units: convert },
        experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai6') },
      });
    await provider.forceFlush();
    const detail = await api<{ shapes: { shape: string; calls: number }[] }>(
      '/api/tools/convert_units',
    );
    expect(detail.shapes.map((x) => [x.shape, x.calls])).toEqual([
      ['unit:string,value:number', 2],
      ['to:string,unit:string,value:number', 1],
    ]);
  });

  it('Toolscope on both sides counts each call once; a client-only agent is counted from its side', async () => {
    const traced = instrumentMcpServer(new McpServer({ name: 'traced', version: '1' }), {
      tracerProvider: provider,
    });
    const plain = new McpServer({ name: 'plain', version: '1' });
    for (const server of [traced, plain])
      server.registerTool('get_quote', { inputSchema: { sku: z.string() } }, async ({ sku }) => ({
        content: [{ type: 'text', text: `quote for ${sku}` }],
      }));
    // Before the OpenLLMetry test: its manual instrumentation patches the Client class for good.
    for (const [server, tool] of [
      [traced, 'both_sides'],
      [plain, 'client_only'],
    ] as const) {
      const client = instrumentMcpClient(new Client({ name: tool, version: '1' }), {
        tracerProvider: provider,
      });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await Promise.all([server.connect(b), client.connect(a)]);
      for (let i = 0; i < 2; i++)
        await client.callTool({ name: 'get_quote', arguments: { sku: `s${i}` } });
      await client.close();
      // The adapters end an MCP call's spans in the turn of the event loop after its response.
      await new Promise((resolve) => setImmediate(resolve));
      await provider.forceFlush();
      expect(await toolNamed('get_quote'), tool).toBeDefined();
    }
    // Two calls traced on both sides, two by the client alone: four calls, not six.
    expect(await toolNamed('get_quote')).toMatchObject({
      calls: 4,
      errors: 0,
      sources: ['toolscope'],
    });
    const server = await callsOf('get_quote', '&side=server');
    const client = await callsOf('get_quote', '&side=client');
    expect([server.length, client.length]).toEqual([2, 4]);
  });
  it('OpenLLMetry: a client-only MCP agent gets tool statistics from its <tool>.tool spans', async () => {
    const server = new McpServer({ name: 'plain', version: '1' });
    server.registerTool('search_docs', { inputSchema: { q: z.string() } }, async ({ q }) =>
      q === 'fail'
        ? { isError: true, content: [{ type: 'text', text: 'index unavailable' }] }
        : { content: [{ type: 'text', text: `results for ${q}` }] },
    );
    const instrumentation = new McpInstrumentation({ traceContent: true });
    instrumentation.setTracerProvider(provider);
    instrumentation.manuallyInstrument({ Client });
    const client = new Client({ name: 'agent', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    await client.callTool({ name: 'search_docs', arguments: { q: 'otel' } });
    await client.callTool({ name: 'search_docs', arguments: { q: 'fail' } });
    await client.close();
    instrumentation.disable();
    await provider.forceFlush();
    expect(await toolNamed('search_docs')).toMatchObject({
      calls: 2,
      errors: 1,
      sources: ['openllmetry'],
    });
    const calls = await callsOf('search_docs', '&side=client');
    expect(calls.map((c) => c.side)).toEqual(['client', 'client']);
    // The arguments were inside `{ tool_name, arguments }`: the shape is of the arguments alone.
    expect(calls[0]?.inputShape).toBe('q:string');
    expect(await callsOf('search_docs', '&side=server')).toEqual([]);
    // traceloop.entity.output (the CallToolResult as JSON) is measured at ingest: the text is in it.
    for (const c of calls) {
      expect(c.resultBytes).toBeGreaterThan(Buffer.byteLength('index unavailable'));
      expect(c.resultTokens).toBeGreaterThan(2);
    }
  });

  it('OpenInference: traceTool spans are calls, named after the tool', async () => {
    const lookup = traceTool(async (input: { sku: string }) => ({ sku: input.sku, stock: 4 }), {
      name: 'check_stock',
      tracer: provider.getTracer('oi'),
    });
    await lookup({ sku: 'sku-1' });
    await provider.forceFlush();
    expect(await toolNamed('check_stock')).toMatchObject({
      calls: 1,
      errors: 0,
      sources: ['openinference'],
    });
    const [call] = await callsOf('check_stock');
    expect(call?.inputShape).toBe('sku:string');
    // The result (output.value) is measured at ingest, then dropped: only its size stays.
    const result = JSON.stringify({ sku: 'sku-1', stock: 4 });
    expect(call?.resultBytes).toBe(Buffer.byteLength(result));
    expect(call?.resultTokens).toBeGreaterThan(3);
  });
});
