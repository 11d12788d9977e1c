// Issue 48: no secret of the corpus (packages/instrument/test/secret-corpus.ts) is stored or shown, whoever
// produced it: defineTool, the MCP adapters and other producers' spans (secrets-producers.ts) export with the
// real OTLP exporter to a running collector, once with content capture off everywhere (the default) and once
// with it on everywhere. Every API answer is read (calls, traces, conversations, tools, search, flags,
// contracts) and a trace page is read in Chromium. The proxy's path is secrets-proxy.test.ts.
import type { Server } from 'node:http';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, watchedPage } from '../../packages/dashboard/test/browser.js';
import { KEYED_VALUES, leaks } from '../../packages/instrument/test/secret-corpus.js';
import { everyAnswer } from './secrets-api.js';
import {
  startOpenAiServer,
  viaDefineTool,
  viaForeignProducers,
  viaMcpAdapters,
} from './secrets-producers.js';

type World = { capture: boolean; collector: Collector; foreignTrace: string; texts: string[] };
const worlds: World[] = [];
let openaiServer: Server;
const contextManager = new AsyncLocalStorageContextManager();

async function produce(capture: boolean): Promise<World> {
  const collector = await startCollector({
    db: ':memory:',
    port: 0,
    hashKey: 'secrets-e2e',
    captureContent: capture,
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': `secrets-${capture ? 'on' : 'off'}`,
      'process.command_args': ['node', 'agent.js', `--api-key=${KEYED_VALUES[9]}`],
    }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }), {
        scheduledDelayMillis: 20,
        maxExportBatchSize: 256,
      }),
    ],
  });
  const conversation = `conv-secrets-${capture ? 'on' : 'off'}`;
  await viaDefineTool(provider, capture, conversation);
  await viaMcpAdapters(provider, capture, conversation);
  const foreignTrace = await viaForeignProducers(provider, openaiServer);
  await provider.forceFlush();
  await provider.shutdown();
  return { capture, collector, foreignTrace, texts: [] };
}

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  openaiServer = await startOpenAiServer();
  for (const capture of [false, true]) worlds.push(await produce(capture));
}, 60_000);

afterAll(async () => {
  for (const w of worlds) await w.collector.close();
  await new Promise((resolve) => openaiServer?.close(resolve));
  contextManager.disable();
});

describe('the secret corpus through every producer, capture off and on', () => {
  for (const capture of [false, true]) {
    it(`appears in no API answer, capture ${capture ? 'on' : 'off'}`, async () => {
      const w = worlds.find((x) => x.capture === capture);
      if (!w) throw new Error('world not produced');
      const answers = await everyAnswer(w.collector.url, [w.foreignTrace]);
      for (const [path, text] of answers) expect(leaks(text), path).toEqual([]);
      const all = [...answers.values()].join('\n');
      // What the answers must show, masked: thrown errors' messages, the foreign prompts and headers, and
      // with capture on the payloads of every slice.
      expect(all).toContain('connect failed: postgres://svc:[REDACTED:password]@db.internal');
      expect(all).toContain('"http.request.header.authorization":"[REDACTED]"');
      expect(all).toContain('llm.input_messages.0.message.content');
      expect(all).toContain('gen_ai.prompt.0.content');
      for (const tool of [
        'corpus_echo',
        'corpus_fail',
        'mcp_echo',
        'mcp_refuse',
        'mcp_throw',
        'oi_lookup',
        'forged',
      ])
        expect(all, tool).toContain(`"tool":"${tool}"`);
      expect(all.includes('corpus-slice-1-visible')).toBe(capture);
    });
  }

  it('is absent from a trace page in Chromium', async () => {
    const w = worlds.find((x) => x.capture);
    if (!w) throw new Error('world not produced');
    const browser = await launch();
    try {
      const page = (await watchedPage(browser)).page;
      for (const traceId of [w.foreignTrace]) {
        await page.goto(`${w.collector.url}/#/traces/${traceId}`);
        await page.getByRole('list', { name: 'spans in time order' }).waitFor();
        await expect.poll(() => page.locator('li.span').count()).toBeGreaterThan(10);
        const html = await page.content();
        expect(html).toContain('[REDACTED');
        expect(html).toContain('oi_lookup');
        expect(leaks(html)).toEqual([]);
      }
    } finally {
      await browser.close();
    }
  });
});
