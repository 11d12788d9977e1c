// Span times to the microsecond (src/span-clock.ts), through the real OTel SDK: calls made one after the other
// within a millisecond start in that order, not at one whole millisecond; a span's duration is the monotonic
// clock's; an event falls inside its span; and a start stays within a millisecond or so of Date.now().
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../src/index.js';
import { anchorAt } from '../src/span-clock.js';
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

  it('moves its anchor when the clocks part by more than a millisecond, and only then', () => {
    const now = performance.now();
    const anchor = anchorAt(now);
    expect(Math.abs(anchor + now - Date.now())).toBeLessThanOrEqual(1);
    // The same reading again: the same anchor.
    expect(anchorAt(now)).toBe(anchor);
    // A reading that claims 5 ms more of the monotonic clock than the wall clock saw: re-anchored to the wall.
    const moved = anchorAt(now + 5);
    expect(moved).not.toBe(anchor);
    expect(Math.abs(moved + now + 5 - Date.now())).toBeLessThanOrEqual(1);
    anchorAt(performance.now());
  });
});
