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
  for (const message of corpusMessages())
    for (const name of ['refuse', 'explode', 'reject'])
      await p.client.callTool({ name, arguments: { message } });
  expect(await p.done(), p.transport.stderr).toBe(0);
  expect(leaks(p.transport.stderr), 'the proxy log').toEqual([]);
  return everyAnswer(collector.url);
}

describe('the secret corpus through toolscope-proxy', () => {
  it('appears in no API answer, with --capture-content and without', async () => {
    const [off, on] = await Promise.all([throughTheProxy(false), throughTheProxy(true)]);
    for (const [capture, answers] of [
      ['off', off],
      ['on', on],
    ] as const) {
      for (const [path, text] of answers) expect(leaks(text), `${capture} ${path}`).toEqual([]);
      const all = [...answers.values()].join('\n');
      // Every call recorded, so the answers above are about all of them.
      const { calls } = JSON.parse(answers.get(CALLS) ?? '{}') as { calls: unknown[] };
      expect(calls, capture).toHaveLength(
        corpusPayloads().length * 2 + corpusMessages().length * 3,
      );
      for (const tool of ['echo_text', 'echo_structured', 'refuse', 'explode', 'reject'])
        expect(all, `${capture} ${tool}`).toContain(`"tool":"${tool}"`);
    }
    // With capture, the payloads are there to read, their secrets masked.
    const all = [...on.values()].join('\n');
    expect(all).toContain('corpus-slice-1-visible');
    expect(all).toContain('[REDACTED:api_key]');
  });
});
