// --alert-webhook: a new flag is posted once, delivery is retried with backoff, flags that existed when the
// collector started are not re-sent, and a loop flag's post says what it adds to the loop cost posted before.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhook } from '../src/alerts/webhook.js';
import { runCli } from '../src/index.js';
import { otlpToolCalls, postJson, startTestCollector, type TestCollector } from './harness.js';

type Posted = { kind: string; tool: string };
type Wasted = {
  loops: number;
  calls: number;
  ms: number;
  resultTokens: number;
  modelTokens: number;
};
const received: Posted[] = [];
const wastedOf = new Map<Posted, Wasted | undefined>();
let failuresLeft = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (failuresLeft > 0) {
      failuresLeft--;
      res.writeHead(503).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as {
      type: string;
      flag: Posted;
      wasted?: Wasted;
    };
    expect(body.type).toBe('toolscope.flag');
    received.push(body.flag);
    wastedOf.set(body.flag, body.wasted);
    res.writeHead(204).end();
  });
});
let url = '';
let c: TestCollector;
const now = Date.now();

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  c = await startTestCollector();
});
afterAll(async () => {
  await c.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const loop = (trace: number, tool: string) =>
  [0, 1].map((i) => ({
    trace,
    tool,
    input: `h${trace}`,
    code: 'REJECTED',
    retryable: false,
    atMs: now - 10_000 + i * 100,
  }));

describe('alert webhook', () => {
  it('posts each new flag once, retrying a failing endpoint, and skips flags older than its start', async () => {
    expect((await postJson(c.url, otlpToolCalls(loop(1, 'old_tool')))).status).toBe(200);
    const hook = startWebhook(c.storage, url, { intervalMs: 3_600_000, backoffMs: 10 });
    await hook.pollNow();
    expect((await postJson(c.url, otlpToolCalls(loop(2, 'new_tool')))).status).toBe(200);
    failuresLeft = 2;
    await hook.pollNow();
    await hook.pollNow();
    await hook.flush();
    await hook.stop();
    expect(received).toEqual([
      expect.objectContaining({ kind: 'retry_after_non_retryable', tool: 'new_tool' }),
    ]);
    expect(failuresLeft).toBe(0);
  });

  it('posts what each loop flag adds to the loop cost, each wasted call once', async () => {
    received.length = 0;
    const hook = startWebhook(c.storage, url, { intervalMs: 3_600_000, backoffMs: 10 });
    await hook.pollNow();
    // One input refused three times in one trace: an identical retry and an unrepaired invalid input, both
    // pinning the same three calls.
    const refused = [0, 1, 2].map((i) => ({
      trace: 3,
      tool: 'story_tool',
      input: 'h3',
      code: 'INVALID_INPUT',
      atMs: now - 5_000 + i * 100,
    }));
    expect((await postJson(c.url, otlpToolCalls(refused))).status).toBe(200);
    await hook.pollNow();
    await hook.flush();
    await hook.stop();
    const posts = received.filter((f) => f.tool === 'story_tool');
    expect(posts.map((f) => f.kind).sort()).toEqual([
      'identical_retry',
      'unrepaired_invalid_input',
    ]);
    // The first posted adds the loop and its two wasted calls; the second names the same calls: it adds none.
    const [first, second] = posts.map((f) => wastedOf.get(f));
    expect(first).toMatchObject({ loops: 1, calls: 2 });
    expect(first?.ms).toBeGreaterThan(0);
    expect(second).toEqual({ loops: 0, calls: 0, ms: 0, resultTokens: 0, modelTokens: 0 });
  });

  it('refuses a webhook that is not an http(s) URL', async () => {
    const out = { text: '' };
    const code = await runCli(['serve', '--alert-webhook', 'ftp://x'], {
      out: () => {},
      err: (t) => {
        out.text += t;
      },
      env: {},
      onSignal: () => {},
    });
    expect(code).toBe(2);
    expect(out.text).toContain('--alert-webhook:');
  });
});
