import { afterEach, describe, expect, it, vi } from 'vitest';
import { heapAndBuffers, MemoryLimiter } from './memory-limiter.js';

const MiB = 1024 * 1024;

/** A limiter of 100 MiB (soft limit 80) over a resident set the test sets. */
function limiter(o: { idle?: boolean; gc?: () => void } = {}) {
  const state = { rss: 50 * MiB, idle: o.idle ?? false, limited: 0, heap: 0 };
  const l = new MemoryLimiter({
    limitBytes: 100 * MiB,
    idle: () => state.idle,
    readRss: () => state.rss,
    heapBytes: () => state.heap,
    collectGarbage: o.gc,
    onLimited: () => state.limited++,
  });
  return { l, state };
}

afterEach(() => vi.useRealTimers());

describe('MemoryLimiter', () => {
  it('admits under the soft limit, refuses past it while work is in flight, and admits again once under', () => {
    vi.useFakeTimers();
    const { l, state } = limiter();
    expect(l.softLimitBytes).toBe(80 * MiB);
    expect(l.admit()).toBe(true);
    state.rss = 81 * MiB;
    vi.advanceTimersByTime(10);
    expect(l.admit()).toBe(false);
    expect(l.reading).toMatchObject({ rssBytes: 81 * MiB, limited: true });
    expect(state.limited).toBe(1);
    state.rss = 79 * MiB;
    vi.advanceTimersByTime(10);
    expect(l.admit()).toBe(true);
    expect(l.reading.limited).toBe(false);
  });

  it('lets one request in when nothing is in flight, whatever the reading', () => {
    vi.useFakeTimers();
    const { l, state } = limiter();
    state.rss = 150 * MiB;
    vi.advanceTimersByTime(10);
    expect(l.admit()).toBe(false);
    state.idle = true;
    expect(l.admit()).toBe(true);
  });

  it('reads the resident set again on admission once the last reading is 10 ms old, not before', () => {
    vi.useFakeTimers();
    const { l, state } = limiter();
    state.rss = 90 * MiB;
    expect(l.admit()).toBe(true); // the reading taken at construction
    vi.advanceTimersByTime(10);
    expect(l.admit()).toBe(false);
  });

  it('forces a collection past the soft limit at most once a second, four times a second past the limit', () => {
    vi.useFakeTimers();
    const gc = vi.fn();
    const { l, state } = limiter({ gc });
    // The heap has always grown enough since the last collection.
    l.start();
    const grow = setInterval(() => {
      state.heap += 32 * MiB;
    }, 10).unref();
    state.rss = 85 * MiB;
    vi.advanceTimersByTime(3_000);
    expect(gc).toHaveBeenCalledTimes(3);
    gc.mockClear();
    state.rss = 120 * MiB;
    vi.advanceTimersByTime(1_000);
    expect(gc.mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(gc.mock.calls.length).toBeLessThanOrEqual(4);
    expect(l.forcedGcs).toBe(3 + gc.mock.calls.length);
    gc.mockClear();
    clearInterval(grow);
    state.heap = 0;
    state.rss = 50 * MiB;
    vi.advanceTimersByTime(1_000);
    expect(gc).not.toHaveBeenCalled();
    l.stop();
  });

  it('forces a collection under the soft limit too once the heap holds a fifth of the limit and grew', () => {
    vi.useFakeTimers();
    const gc = vi.fn();
    const { l, state } = limiter({ gc });
    l.start();
    state.heap = 19 * MiB;
    vi.advanceTimersByTime(2_000);
    expect(gc).not.toHaveBeenCalled();
    state.heap = 21 * MiB;
    vi.advanceTimersByTime(200);
    expect(gc).toHaveBeenCalledTimes(1);
    expect(l.reading.limited).toBe(false);
    // Still over a fifth, but not grown since: no more collections.
    vi.advanceTimersByTime(5_000);
    expect(gc).toHaveBeenCalledTimes(1);
    l.stop();
  });

  /** A limiter over the hard limit with 100 MiB of heap, after its first forced collection. */
  function overLimitAfterOneGc() {
    vi.useFakeTimers();
    const gc = vi.fn();
    const { l, state } = limiter({ gc });
    l.start();
    state.heap = 100 * MiB;
    state.rss = 150 * MiB;
    vi.advanceTimersByTime(500);
    expect(gc).toHaveBeenCalledTimes(1);
    return { l, state, gc };
  }

  it('forces no collection while the heap has not grown, however long it stays over the limit', () => {
    const { l, state, gc } = overLimitAfterOneGc();
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(1);
    state.heap += 16 * MiB;
    vi.advanceTimersByTime(300);
    expect(gc).toHaveBeenCalledTimes(2);
    l.stop();
  });

  it('reads what a collection can give back as the heap and the array buffers, not the heap alone', () => {
    // 32 MiB of buffers (request bodies, in the collector) and next to no heap.
    const held = Array.from({ length: 32 }, () => Buffer.alloc(MiB, 1));
    // The reading less the heap read just after it: the live buffers, all 32 MiB of them (a collection between
    // the two readings only lowers the heap). A growth from a reading taken before the buffers was asked here
    // once, and a collection the buffers set off freed as much other garbage from the heap in 2 of 3 runs.
    const reading = heapAndBuffers();
    expect(reading - process.memoryUsage().heapUsed).toBeGreaterThan(31 * MiB);
    expect(held).toHaveLength(32);
  });

  it('takes the lowest reading since a collection as its base, not the one taken right after it', () => {
    const { l, state, gc } = overLimitAfterOneGc();
    // The dead buffers are freed after the collection returns: 40 MiB less from the next reading on.
    state.heap = 60 * MiB;
    vi.advanceTimersByTime(300);
    // 16 MiB over that, not over the reading taken right after the collection, is growth enough.
    state.heap = 77 * MiB;
    vi.advanceTimersByTime(300);
    expect(gc).toHaveBeenCalledTimes(2);
    l.stop();
  });
});
