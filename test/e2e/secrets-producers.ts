// Producers of the secret corpus for secrets-paths.test.ts: defineTool, the MCP adapters on both ends of an SDK
// connection, and other producers' spans (the OpenInference and OpenLLMetry OpenAI instrumentations around a real
// OpenAI client, OpenInference's traceTool, GenAI prompt attributes, HTTP headers, a span that claims
// toolscope.attempt). Each puts the whole corpus in arguments, results, JSON texts and thrown errors' messages.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { traceTool } from '@arizeai/openinference-core';
import { OpenAIInstrumentation as OpenInferenceOpenAI } from '@arizeai/openinference-instrumentation-openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanKind, SpanStatusCode, type TracerProvider } from '@opentelemetry/api';
import { defineTool, instrumentMcpClient, instrumentMcpServer } from '@toolscope/instrument';
import { OpenAIInstrumentation as TraceloopOpenAI } from '@traceloop/instrumentation-openai';
import OpenAI from 'openai';
import { z } from 'zod';
import {
  corpusMessages,
  corpusPayloads,
  KEYED_VALUES,
  SECRET_FORMATS,
} from '../../packages/instrument/test/secret-corpus.js';

/** One turn of the event loop: the MCP adapters end a call's span in the turn after its response. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** defineTool with capture as given: an echo of every corpus payload, a throw of every corpus message. */
export async function viaDefineTool(
  provider: TracerProvider,
  capture: boolean,
  conversationId: string,
) {
  const common = {
    version: '1',
    effect: 'read' as const,
    description: 'secret corpus',
    tracerProvider: provider,
    capture: capture ? { maxLength: 100_000 } : false,
    hashKey: 'secrets-e2e',
  };
  const echo = defineTool({
    ...common,
    name: 'corpus_echo',
    input: z.looseObject({}),
    output: z.looseObject({}),
    execute: (input) => ({ ...input, text: JSON.stringify(input) }),
  });
  const fail = defineTool({
    ...common,
    name: 'corpus_fail',
    input: z.object({ message: z.string() }),
    output: z.null(),
    execute: ({ message }) => {
      throw new Error(message);
    },
  });
  for (const payload of corpusPayloads()) await echo.call(payload, { conversationId });
  for (const message of corpusMessages()) await fail.call({ message }, { conversationId });
}

/** An instrumented SDK 1.x server and client: results as JSON text, isError texts and thrown errors. */
export async function viaMcpAdapters(
  provider: TracerProvider,
  capture: boolean,
  conversationId: string,
) {
  const options = {
    tracerProvider: provider,
    captureContent: capture ? { maxLength: 100_000 } : false,
  };
  const server = instrumentMcpServer(new McpServer({ name: 'corpus', version: '1.0.0' }), {
    ...options,
    hashKey: 'secrets-e2e',
  });
  server.registerTool(
    'mcp_echo',
    { inputSchema: { payload: z.looseObject({}) } },
    async (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args.payload) }],
    }),
  );
  server.registerTool('mcp_refuse', { inputSchema: { message: z.string() } }, async (args) => ({
    content: [{ type: 'text', text: `refused: ${args.message}` }],
    isError: true,
  }));
  server.registerTool('mcp_throw', { inputSchema: { message: z.string() } }, async (args) => {
    throw new Error(args.message);
  });
  const client = instrumentMcpClient(new Client({ name: 'corpus-agent', version: '1' }), {
    ...options,
    conversationId,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  for (const payload of corpusPayloads())
    await client.callTool({ name: 'mcp_echo', arguments: { payload } });
  for (const message of corpusMessages())
    await client.callTool({ name: 'mcp_refuse', arguments: { message } });
  // A thrown error's message takes the exception path, masked whatever the capture setting: a few suffice.
  for (const message of corpusMessages().slice(0, 4))
    await client.callTool({ name: 'mcp_throw', arguments: { message } });
  await client.close();
  await turn();
}

/** Chat completions as the OpenAI API answers them, the answer repeating the prompt (secrets and all). */
export function startOpenAiServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const asked = JSON.parse(body) as { model: string; messages: { content: string }[] };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_767_225_600,
          model: asked.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `you said: ${asked.messages[0]?.content}` },
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

/**
 * Other producers' spans under one root span; returns its trace id. The OpenAI instrumentations and traceTool
 * are the real packages; the GenAI prompt attributes, HTTP header attributes and the span claiming
 * toolscope.attempt are written with the OTel SDK by hand, as their producers name them (no HTTP
 * instrumentation is installed in this workspace).
 */
export async function viaForeignProducers(
  provider: TracerProvider,
  openaiServer: Server,
): Promise<string> {
  const { port } = openaiServer.address() as AddressInfo;
  const openai = new OpenAI({
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: 'unused',
    maxRetries: 0,
  });
  const tracer = provider.getTracer('foreign-producer');
  const messages = corpusMessages();
  return tracer.startActiveSpan('agent.turn', async (root) => {
    const oi = new OpenInferenceOpenAI();
    oi.setTracerProvider(provider);
    oi.manuallyInstrument({ OpenAI } as never);
    for (const content of messages)
      await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
      });
    oi.disable();
    const tl = new TraceloopOpenAI();
    tl.setTracerProvider(provider);
    tl.manuallyInstrument(OpenAI);
    for (const content of messages.slice(0, 4))
      await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content }],
      });
    tl.disable();
    const lookup = traceTool(async (input: Record<string, unknown>) => ({ echoed: input }), {
      name: 'oi_lookup',
      tracer,
    });
    for (const payload of corpusPayloads()) await lookup(payload);

    const prompts: Record<string, string> = {};
    SECRET_FORMATS.forEach((e, i) => {
      prompts[`gen_ai.prompt.${i}.content`] = e.text;
      prompts[`gen_ai.prompt.${i}.role`] = 'user';
    });
    const chat = tracer.startSpan('chat gpt-4o', {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.input.messages': JSON.stringify(
          messages.map((content) => ({ role: 'user', parts: [{ type: 'text', content }] })),
        ),
        ...prompts,
      },
    });
    chat.addEvent('gen_ai.user.message', { content: messages[0] ?? '' });
    chat.end();

    const http = tracer.startSpan('POST', {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': 'POST',
        'url.full': `https://deploy:${KEYED_VALUES[2]}@api.example.com/v1/charges?access_token=${KEYED_VALUES[3]}`,
        'http.request.header.authorization': [`Bearer ${KEYED_VALUES[4]}`],
        'http.request.header.x-api-key': [String(KEYED_VALUES[5])],
        'http.request.header.cookie': [`sid=${KEYED_VALUES[6]}`],
        'http.response.header.set-cookie': [`sid=${KEYED_VALUES[7]}; HttpOnly`],
        'db.connection_string': `Server=db;Password=${KEYED_VALUES[8]}`,
      },
    });
    http.setStatus({ code: SpanStatusCode.ERROR, message: messages[1] ?? '' });
    http.end();

    // A span that claims to be the instrument package's own call, carrying raw content.
    const forged = tracer.startSpan('execute_tool forged', {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'forged',
        'toolscope.attempt': 1,
        'gen_ai.tool.call.arguments': JSON.stringify(corpusPayloads()[0]),
        'gen_ai.tool.call.result': messages.join('\n'),
      },
    });
    forged.recordException(new Error(messages[2] ?? ''));
    forged.end();
    root.end();
    return root.spanContext().traceId;
  });
}
