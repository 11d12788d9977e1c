// Span starts in the order the spans start (src/span-clock.ts), through the real OTel SDK: calls made one after
// the other within a millisecond start in that order, not at one whole millisecond; a span's duration is the
// monotonic clock's; an event falls inside its span; and a start stays within a millisecond of Date.now().
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../src/index.js';
import { spanStartMs } from '../src/span-clock.js';
import { createTracing } from './tracing.js';

/** A tool; with `busy`, its first attempt fails with a 503 and is tried again (an event on the span). */
function tool(busy = false) {
  const tracing = createTracing();
  let attempts = 0;
  const t = defineTool({
    name: 'count',
    version: '1',
    effect: 'read',
    description: 'Counts',
    input: z.object({ n: z.number() }),
    output: z.object({ n: z.number() }),
    tracerProvider: tracing.provider,
    hashKey: 'clock',
    retry: { maxAttempts: 2, backoffMs: 1, jitter: false },
    execute: ({ n }) => {
      attempts++;
      if (busy && attempts === 1) throw Object.assign(new Error('upstream busy'), { status: 503 });
      return { n };
    },
  });
  return { t, tracing };
}

/** An HrTime in nanoseconds, exactly (hrTimeToNanoseconds gives a double, which rounds epoch times). */
const ns = (t: [number, number]) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);

describe('span times', () => {
  it('start calls made within a millisecond in the order they were made', async () => {
    const { t, tracing } = tool();
    for (let i = 0; i < 40; i++) await t.call({ n: i });
    const starts = tracing.spans().map((s) => ns(s.startTime));
    expect(starts).toHaveLength(40);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i] as bigint, `call ${i}`).toBeGreaterThan(starts[i - 1] as bigint);
    // Whole milliseconds would repeat: 40 quick calls span far fewer than 40 of them.
    expect(starts.some((s) => s % 1_000_000n !== 0n)).toBe(true);
  });

  it('keeps a span’s duration and events on the clock of its start, near the wall clock', async () => {
    const { t, tracing } = tool(true);
    const before = BigInt(Date.now()) * 1_000_000n;
    await t.call({ n: 1 });
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    const span = tracing.only();
    const start = ns(span.startTime);
    const end = ns(span.endTime);
    expect(end - start).toBe(ns(span.duration));
    expect(end).toBeGreaterThanOrEqual(start);
    // Within a millisecond of the wall clock either side (Date.now() is the millisecond under the time).
    expect(start).toBeGreaterThanOrEqual(before - 1_000_000n);
    expect(end).toBeLessThanOrEqual(after + 1_000_000n);
    expect(span.events.length).toBeGreaterThan(0);
    for (const e of span.events) {
      expect(ns(e.time)).toBeGreaterThanOrEqual(start);
      expect(ns(e.time)).toBeLessThanOrEqual(end);
    }
  });

  it('starts at Date.now() or a microsecond after the last start, and follows the wall clock back past a second', () => {
    const a = spanStartMs();
    const b = spanStartMs();
    expect(b).toBeGreaterThan(a);
    expect(b).toBeGreaterThanOrEqual(Date.now() - 1);
    // The wall clock stepped ahead and held there, so that reading it twice gives one time however busy the
    // machine (a clock that kept running ticked between the start and the read in one loaded run).
    const stepped = (aheadMs: number) => {
      const at = Date.now() + aheadMs;
      return vi.spyOn(Date, 'now').mockImplementation(() => at);
    };
    // The wall clock half a second ahead, then back: starts run on from the last, a microsecond each, in order
    // (unless this thread stalled for half a second between the two).
    let clock = stepped(500);
    const ahead = spanStartMs();
    expect(ahead).toBe(Date.now());
    clock.mockRestore();
    expect(spanStartMs()).toBeCloseTo(ahead + 0.001, 6);
    // Two thousand starts in a row, more than a millisecond's worth of microseconds: still in order.
    let last = spanStartMs();
    for (let i = 0; i < 2000; i++) {
      const next = spanStartMs();
      expect(next).toBeGreaterThan(last);
      last = next;
    }
    // The wall clock five seconds ahead, then back: past a second, starts follow it back at once.
    clock = stepped(5000);
    expect(spanStartMs()).toBe(Date.now());
    clock.mockRestore();
    expect(Math.floor(spanStartMs())).toBeLessThanOrEqual(Date.now());
  });
});
