// One logical call on the trace page, in real Chromium against a real collector seeded over OTLP protobuf by two
// "server processes" (two providers, two resources, one of them named with a script payload): a booking whose
// two legs two processes served, a booking one process saw whole after a round of input, and a task created by
// one process and polled on the other are one row each in the story, the legs and polls listed inside their
// call's row, the wait for input named as such, a part's own card naming the span that holds its call, and
// nothing from the data runs. The spans carry the attributes the MCP adapters write (docs/span-contract.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Context, context, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { type Collector, startCollector } from '@toolscope/collector';
import type { TraceResponse } from '@toolscope/collector/schemas';
import * as sc from '@toolscope/instrument/semconv';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, screenshot, watchedPage } from './browser.js';
import { exportingProvider, HOSTILE } from './seed.js';

let dir: string;
let collector: Collector;
let browser: Browser;
let traceId: string;

const STATE = '5a5a5a5a5a5a5a5a';
const TASK = '7a7a7a7a7a7a7a7a';
const T0 = Date.now() - 60_000;

/** A SERVER span from `at` to `at + ms` (milliseconds after T0) under `parent`, with `attributes`. */
function serverSpan(
  tracer: Tracer,
  parent: Context,
  name: string,
  at: number,
  ms: number,
  attributes: Record<string, string | number | boolean>,
): string {
  const span = tracer.startSpan(
    name,
    { kind: SpanKind.SERVER, startTime: T0 + at, attributes },
    parent,
  );
  span.end(T0 + at + ms);
  return span.spanContext().spanId;
}

/** What the adapters write on every `tools/call` span of `tool`. */
const callOf = (tool: string, input: string) => ({
  [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
  [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
  [sc.ATTR_MCP_METHOD_NAME]: 'tools/call',
  [sc.ATTR_TOOLSCOPE_SCHEMA_HASH]: 'aaaaaaaaaaaaaaaa',
  [sc.ATTR_TOOLSCOPE_ATTEMPT]: 1,
  [sc.ATTR_TOOLSCOPE_INPUT_HASH]: input,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolscope-logical-'));
  collector = await startCollector({ db: join(dir, 'toolscope.db'), port: 0 });
  const a = exportingProvider(collector.url, 'bookings-a');
  const b = exportingProvider(collector.url, HOSTILE.service);
  const root = a.getTracer('agent').startSpan('agent.turn', { startTime: T0 });
  traceId = root.spanContext().traceId;
  const turn = trace.setSpan(context.active(), root);
  const ta = a.getTracer('@toolscope/instrument');
  const tb = b.getTracer('@toolscope/instrument');
  // A booking whose legs two processes served: A's waited for a leg it never saw, B's resumed it.
  serverSpan(ta, turn, 'tools/call book', 0, 30, {
    ...callOf('book', '1111111111111111'),
    [sc.ATTR_TOOLSCOPE_CALL_LEGS]: 1,
    [sc.ATTR_TOOLSCOPE_CALL_AWAITS]: STATE,
  });
  serverSpan(tb, turn, 'tools/call book', 1200, 40, {
    ...callOf('book', '1111111111111111'),
    [sc.ATTR_TOOLSCOPE_CALL_LEGS]: 1,
    [sc.ATTR_TOOLSCOPE_CALL_RESUMES]: STATE,
  });
  // A booking one process saw whole: two legs, 1.5 s of them waiting for the user's answer.
  serverSpan(ta, turn, 'tools/call book', 2000, 1600, {
    ...callOf('book', '2222222222222222'),
    [sc.ATTR_TOOLSCOPE_CALL_LEGS]: 2,
    [sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS]: 1500,
  });
  // A task A created, polled three times on B.
  serverSpan(ta, turn, 'tools/call report', 4000, 5, {
    ...callOf('report', '3333333333333333'),
    [sc.ATTR_TOOLSCOPE_TASK_ID_HASH]: TASK,
    [sc.ATTR_TOOLSCOPE_TASK_POLLS]: 0,
    [sc.ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS]: 25,
    [sc.ATTR_TOOLSCOPE_TASK_STATUS]: 'working',
  });
  for (const k of [1, 2, 3])
    serverSpan(tb, turn, 'tasks/get', 4000 + 25 * k, 2, {
      [sc.ATTR_MCP_METHOD_NAME]: 'tasks/get',
      [sc.ATTR_TOOLSCOPE_TASK_ID_HASH]: TASK,
      [sc.ATTR_TOOLSCOPE_TASK_POLLS]: 1,
      [sc.ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS]: 25,
      [sc.ATTR_TOOLSCOPE_TASK_STATUS]: k < 3 ? 'working' : 'completed',
    });
  root.end(T0 + 5000);
  // Each provider's batch exporter answers once the collector has committed.
  await Promise.all([a.shutdown(), b.shutdown()]);
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('one logical call on the trace page', () => {
  it('shows each call once, its legs and polls inside it and the wait for input named', async () => {
    const res = await fetch(`${collector.url}/api/traces/${traceId}`);
    const { spans } = (await res.json()) as TraceResponse;
    const holders = spans.filter((s) => s.call && !s.call.joinedTo);
    expect(holders.map((s) => s.call?.tool).sort()).toEqual(['book', 'book', 'report']);

    const w = await watchedPage(browser);
    await w.page.goto(`${collector.url}/#/traces/${traceId}`);
    const rows = w.page.locator('ol.story > li[data-n]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    const [joined, whole, task] = [rows.nth(0), rows.nth(1), rows.nth(2)];

    // The booking of two processes: one row, two legs, its second leg listed inside it with where it ran.
    await expect.poll(() => joined.locator('summary').textContent()).toContain('2 legs');
    await joined.locator('summary').click();
    const legs = joined.getByRole('list', { name: 'parts of this call' }).locator('li');
    expect(await legs.count()).toBe(1);
    const leg = (await legs.first().textContent()) ?? '';
    expect(leg).toMatch(/^leg /);
    // The other process's name, as text.
    expect(leg).toContain(HOSTILE.service);
    expect(await joined.locator('.parts').textContent()).toContain('Joined from 2 spans');

    // The booking one process saw whole: the wait for input named as such.
    expect(await whole.getByTestId('input-wait').textContent()).toBe('waited 1.50 s for input');
    expect(await whole.locator('summary').textContent()).toContain('2 legs');

    // The task: its polls in one line, and each poll a part inside the row.
    expect(await task.locator('summary').textContent()).toContain(
      'task: 3 polls (asked every 25.0 ms), completed',
    );
    await task.locator('summary').click();
    const polls = task.getByRole('list', { name: 'parts of this call' }).locator('li');
    expect(await polls.allTextContents()).toEqual([
      expect.stringMatching(/^poll .* working/),
      expect.stringMatching(/^poll .* working/),
      expect.stringMatching(/^poll .* completed/),
    ]);

    // In the timeline each part's card names the span holding its call.
    expect(await w.page.locator('ol.timeline [data-testid="part-of"]').count()).toBe(4);
    await screenshot(w.page, 'logical-call');
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(await w.violations()).toEqual([]);
    expect(await w.pwned()).toBeUndefined();
    await w.page.close();
  });
});
