// A call traced by the proxy and by an instrumented server behind it: one trace, the server's SERVER span the
// child of the proxy's (the proxy passed its own context on in _meta), both with the same input and output
// hashes under the deployment's key: what the collector needs to count the call once (docs/intake.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './processes.js';
import { reader, type Span } from './proxy-collector.js';
import { throughProxy, tsNode } from './proxy-process.js';

const KEY = 'proxy-chain-key';
const dir = mkdtempSync(join(tmpdir(), 'toolscope-proxy-chain-'));
let collector: Collector;
beforeAll(async () => {
  collector = await startCollector({ db: join(dir, 'chain.db'), port: 0, hashKey: KEY });
});
afterAll(async () => {
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the proxy in front of an instrumented server', () => {
  // Every wait below is on the processes' progress (an answer, an exit, a stored span); the bound only catches a
  // hang, above the server's 30 s exit grace, which the default 20 s cut short on a loaded machine.
  it('makes one trace: the server span is the proxy span’s child, with the same hashes', async () => {
    const upstream = [
      process.execPath,
      ...tsNode(`${ROOT}test/e2e/proxy-instrumented-upstream.ts`),
    ];
    const p = await throughProxy(upstream, {
      // The server flushes its own spans when stdin closes; on a loaded machine that outlasts the default 2 s.
      flags: ['--otlp-endpoint', collector.url, '--exit-grace-ms', '30000'],
      env: { TOOLSCOPE_HASH_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    });
    await p.client.listTools();
    const answer = await p.client.callTool({ name: 'lookup', arguments: { key: 'k1' } });
    expect(answer.content).toEqual([{ type: 'text', text: 'value of k1' }]);
    expect(await p.done()).toBe(0);

    const { callsOf, api } = reader(collector.url);
    const [first] = await callsOf('lookup', 1);
    // The two processes export on their own: wait until the trace holds both spans of the call.
    let spans: Span[] = [];
    const both = () =>
      spans.filter((s) => s.name === 'tools/call lookup').length === 2 &&
      spans.some((s) => s.attributes['toolscope.proxy'] === true);
    while (!both()) {
      spans = (await api<{ spans: Span[] }>(`/api/traces/${first?.traceId}`)).spans;
      if (!both()) await new Promise((r) => setTimeout(r, 50));
    }
    const proxy = spans.find((s) => s.attributes['toolscope.proxy'] === true);
    const server = spans.find((s) => s.name === 'tools/call lookup' && s !== proxy);
    // And the collector counts the call once, from the server's row (the proxy row is paired by it).
    const { calls } = await api<{ calls: { spanId: string; proxy: boolean }[] }>(
      '/api/calls?tool=lookup&since=1h',
    );
    expect(calls.map((c) => [c.spanId, c.proxy])).toEqual([[server?.spanId, false]]);
    expect(proxy?.kind).toBe(2);
    expect(server?.kind).toBe(2);
    expect(server?.parentSpanId).toBe(proxy?.spanId);
    expect(server?.resource['service.name']).toBe('instrumented-upstream');
    // A call outside any trace of the client's: the proxy gives it the session's conversation and passes it on.
    expect(proxy?.attributes['gen_ai.conversation.id']).toEqual(expect.any(String));
    expect(server?.attributes['gen_ai.conversation.id']).toBe(
      proxy?.attributes['gen_ai.conversation.id'],
    );
    for (const attribute of [
      'toolscope.input.hash',
      'toolscope.input.shape',
      'toolscope.output.hash',
    ])
      expect(server?.attributes[attribute], attribute).toBe(proxy?.attributes[attribute]);
  }, 90_000);
});
