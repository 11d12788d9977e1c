// Issue 48 through `toolscope-proxy` (stdio): the secret corpus sent as arguments and echoed back by the upstream
// (secrets-upstream.ts) in JSON text results, structured content, isError texts, thrown errors and a rejection's
// reason is in no API answer of the collector the proxy exports to, with --capture-content and without.
import { type Collector, startCollector } from '@toolscope/collector';
import { afterAll, describe, expect, it } from 'vitest';
import {
  corpusMessages,
  corpusPayloads,
  leaks,
} from '../../packages/instrument/test/secret-corpus.js';
import { ROOT } from './processes.js';
import { throughProxy, tsNode } from './proxy-process.js';
import { everyAnswer } from './secrets-api.js';

const CALLS = '/api/calls?since=1h&limit=1000';
const collectors: Collector[] = [];
afterAll(async () => {
  for (const c of collectors) await c.close();
});

/** Runs the corpus through the proxy into a collector of its own; returns the collector's answers. */
async function throughTheProxy(capture: boolean): Promise<Map<string, string>> {
  const collector = await startCollector({ db: ':memory:', port: 0, captureContent: capture });
  collectors.push(collector);
  const flags = ['--otlp-endpoint', collector.url, ...(capture ? ['--capture-content'] : [])];
  const upstream = [process.execPath, ...tsNode(`${ROOT}test/e2e/secrets-upstream.ts`)];
  const p = await throughProxy(upstream, { flags, env: { TOOLSCOPE_HASH_KEY: 'secrets-proxy' } });
  for (const payload of corpusPayloads()) {
    await p.client.callTool({ name: 'echo_text', arguments: { payload } });
    await p.client.callTool({ name: 'echo_structured', arguments: { payload } });
  }
  // Every message as an isError text; a thrown error and a rejection take the same path through the proxy, so a
  // few of each are enough (the whole corpus would make this test outlast its deadline on a loaded machine).
  for (const message of corpusMessages())
    await p.client.callTool({ name: 'refuse', arguments: { message } });
  for (const message of corpusMessages().slice(0, 3)) {
    await p.client.callTool({ name: 'explode', arguments: { message } });
    await p.client.callTool({ name: 'reject', arguments: { message } });
  }
  expect(await p.done(), p.transport.stderr).toBe(0);
  expect(leaks(p.transport.stderr), 'the proxy log').toEqual([]);
  return everyAnswer(collector.url);
}

describe('the secret corpus through toolscope-proxy', () => {
  for (const capture of [false, true]) {
    it(`appears in no API answer, ${capture ? 'with' : 'without'} --capture-content`, async () => {
      const answers = await throughTheProxy(capture);
      for (const [path, text] of answers) expect(leaks(text), path).toEqual([]);
      // Every call recorded, so the answers above are about all of them.
      const { calls } = JSON.parse(answers.get(CALLS) ?? '{}') as { calls: unknown[] };
      expect(calls).toHaveLength(corpusPayloads().length * 2 + corpusMessages().length + 6);
      const all = [...answers.values()].join('\n');
      for (const tool of ['echo_text', 'echo_structured', 'refuse', 'explode', 'reject'])
        expect(all, tool).toContain(`"tool":"${tool}"`);
      // With capture, the payloads are there to read, their secrets masked.
      expect(all.includes('corpus-slice-1-visible')).toBe(capture);
      if (capture) expect(all).toContain('[REDACTED:api_key]');
    });
  }
});
