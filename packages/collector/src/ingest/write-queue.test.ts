// The queue's scheduling rules, observed through a storage whose writes finish when the test says so. The real
// SQLite storage under load is covered by ingest, overload and durability tests; what they cannot pin down is
// how many writes are outstanding at once and what a retention step waits for, so this stand-in records that.
import { describe, expect, it } from 'vitest';
import type { NormalizedSpan } from '../otlp/model.js';
import type { WriteOutcome } from '../storage/contract.js';
import { type BatchStages, WriteQueue } from './write-queue.js';

/** Batches as their span counts: the queue's rules do not look inside them. */
const counting: BatchStages<number> = {
  process: (spans) => spans.length,
  merge: (counts) => counts.reduce((a, b) => a + b, 0),
};

type Gate = { spans: number; finish: (fail?: Error) => void };

function gatedStorage() {
  const started: Gate[] = [];
  const events: string[] = [];
  let outstanding = 0;
  let maxOutstanding = 0;
  const write = (spans: number) =>
    new Promise<WriteOutcome>((resolve, reject) => {
      outstanding++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      events.push(`start ${spans}`);
      started.push({
        spans,
        finish: (fail) => {
          outstanding--;
          events.push(`end ${spans}`);
          if (fail) reject(fail);
          else resolve({ inserted: spans, duplicates: 0, toolCalls: 0 });
        },
      });
    });
  return {
    storage: { write },
    started,
    events,
    maxOutstanding: () => maxOutstanding,
  };
}

/** A queue writing to `g`'s storage, with `maxInFlight` writes out at once when given (default 2). */
const queueOn = (g: ReturnType<typeof gatedStorage>, maxInFlight?: number, fillFirst = false) =>
  new WriteQueue(g.storage, {
    stages: counting,
    maxPendingSpans: 10_000,
    maxBatchSpans: 1_000,
    fillFirst,
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  });

const spans = (n: number) => Array.from({ length: n }, () => ({}) as NormalizedSpan);
const tick = () => new Promise((r) => setImmediate(r));

describe('WriteQueue', () => {
  it('keeps at most two writes outstanding and merges what queued meanwhile into the next', async () => {
    const g = gatedStorage();
    const queue = queueOn(g);
    const a = queue.enqueue(spans(1));
    await tick();
    const b = queue.enqueue(spans(2));
    await tick();
    const c = queue.enqueue(spans(3));
    const d = queue.enqueue(spans(4));
    await tick();
    // Two writes handed out (1, then 2); 3 and 4 wait and are merged once one of them commits.
    expect(g.started.map((s) => s.spans)).toEqual([1, 2]);
    g.started[0]?.finish();
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 2, 7]);
    g.started[1]?.finish();
    g.started[2]?.finish();
    for (const e of [a, b, c, d]) {
      expect(e.ok).toBe(true);
      if (e.ok) await e.committed;
    }
    expect(g.maxOutstanding()).toBe(2);
    expect(queue.pendingSpans).toBe(0);
  });

  it('runs a retention step only after every write handed out before it has committed', async () => {
    const g = gatedStorage();
    const queue = queueOn(g);
    queue.enqueue(spans(1));
    await tick();
    queue.enqueue(spans(2));
    await tick();
    const job = queue.exclusive(() => {
      g.events.push('retention');
    });
    await tick();
    g.started[1]?.finish();
    await tick();
    expect(g.events).not.toContain('retention');
    g.started[0]?.finish();
    await job;
    expect(g.events).toEqual(['start 1', 'start 2', 'end 2', 'end 1', 'retention']);
  });

  it('filling writes first, starts one beside another only with a whole write queued', async () => {
    const g = gatedStorage();
    const queue = queueOn(g, 2, true);
    const first = queue.enqueue(spans(1));
    await tick();
    const rest = [queue.enqueue(spans(2)), queue.enqueue(spans(3))];
    await tick();
    // 5 spans queued beside a write in flight: they wait for its commit, and go out together.
    expect(g.started.map((s) => s.spans)).toEqual([1]);
    g.started[0]?.finish();
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 5]);
    // A whole write's spans (1,000) go out beside it at once; past two in flight, the rest waits.
    rest.push(queue.enqueue(spans(600)), queue.enqueue(spans(400)));
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 5, 1_000]);
    rest.push(queue.enqueue(spans(1_000)));
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 5, 1_000]);
    g.started[1]?.finish();
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 5, 1_000, 1_000]);
    // A retention step does not wait to fill a write: it waits for those in flight, then the rest goes out.
    rest.push(queue.enqueue(spans(7)));
    const job = queue.exclusive(() => {
      g.events.push('retention');
    });
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 5, 1_000, 1_000]);
    g.started[2]?.finish();
    g.started[3]?.finish();
    await job;
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 5, 1_000, 1_000, 7]);
    g.started[4]?.finish();
    for (const e of [first, ...rest]) {
      expect(e.ok).toBe(true);
      if (e.ok) await e.committed;
    }
    expect(g.maxOutstanding()).toBe(2);
    expect(queue.pendingSpans).toBe(0);
    expect(g.events.indexOf('retention')).toBeLessThan(g.events.indexOf('start 7'));
  });

  it('filling writes first, a partial write waits only for the partial one in flight', async () => {
    const g = gatedStorage();
    const queue = queueOn(g, 3, true);
    const all = [queue.enqueue(spans(1_000))];
    await tick();
    // A whole write in flight holds nothing back: 10 spans go out beside it at once.
    all.push(queue.enqueue(spans(10)));
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1_000, 10]);
    // Beside the partial write of 10, 20 spans wait: not for the whole write's commit, for the partial one's.
    all.push(queue.enqueue(spans(20)));
    await tick();
    g.started[0]?.finish();
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1_000, 10]);
    g.started[1]?.finish();
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1_000, 10, 20]);
    // A failed partial write lets the next go out, and close waits for it.
    all.push(queue.enqueue(spans(30)));
    await tick();
    const failed = all[2];
    if (!failed?.ok) throw new Error('enqueue refused');
    const rejected = expect(failed.committed).rejects.toThrow('disk full');
    g.started[2]?.finish(new Error('disk full'));
    await rejected;
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1_000, 10, 20, 30]);
    const closed = queue.close();
    g.started[3]?.finish();
    await closed;
    expect(queue.pendingSpans).toBe(0);
  });

  it('fails only the requests of a failed write, and close waits for the rest', async () => {
    const g = gatedStorage();
    const queue = queueOn(g, 1);
    const a = queue.enqueue(spans(1));
    await tick();
    const b = queue.enqueue(spans(2));
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1]);
    if (!a.ok || !b.ok) throw new Error('enqueue refused');
    const failed = expect(a.committed).rejects.toThrow('disk full');
    g.started[0]?.finish(new Error('disk full'));
    await failed;
    await tick();
    expect(g.started.map((s) => s.spans)).toEqual([1, 2]);
    const closed = queue.close();
    expect(queue.enqueue(spans(1))).toEqual({ ok: false, reason: 'closed' });
    g.started[1]?.finish();
    await b.committed;
    await closed;
    expect(queue.pendingSpans).toBe(0);
  });
});
