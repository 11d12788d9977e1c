// Retention: deletes data older than the configured age in small steps through the writer, yielding between
// steps, so a large backlog never stalls ingest.
import type { Storage } from '../storage/contract.js';
import type { WriteQueue } from './write-queue.js';

export type Retention = { stop(): void; runOnce(): Promise<number> };

const TRACES_PER_STEP = 200;

export function startRetention(
  storage: Storage,
  queue: WriteQueue,
  maxAgeMs: number,
  intervalMs: number,
  /** Told of each failed step (required: a retention failure is never silent). */
  onError: (error: unknown) => void,
): Retention {
  let stopped = false;
  let running: Promise<number> | undefined;
  const runOnce = async (): Promise<number> => {
    const cutoffNs = BigInt(Date.now() - maxAgeMs) * 1_000_000n;
    let total = 0;
    for (;;) {
      let deleted = 0;
      await queue.exclusive(async () => {
        deleted = await storage.deleteBefore(cutoffNs, TRACES_PER_STEP);
      });
      total += deleted;
      if (deleted < TRACES_PER_STEP || stopped) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const tick = () => {
    if (stopped || running) return;
    running = runOnce()
      .catch((error: unknown) => {
        onError(error);
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    runOnce,
  };
}
