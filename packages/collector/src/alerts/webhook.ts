// `--alert-webhook URL`: posts each new flag once, as JSON, from a background poll of the flags API. Delivery
// is retried with backoff and never blocks ingest. Flags present when the collector starts count as already
// sent, so a restart does not repeat them. A loop flag's post says what it adds to the loop cost of the flags
// posted before it, each wasted call counted once, so a receiver that adds them up counts no call twice.
import { flagsOf } from '../detection/read-flags.js';
import { type Flag, type TotalWasted, WasteSum, wastedDelta } from '../detectors/flag.js';
import type { Storage } from '../storage/contract.js';

export type WebhookOptions = {
  intervalMs?: number;
  maxAttempts?: number;
  backoffMs?: number;
  /** How far back each poll looks. */
  windowMs?: number;
  onError?: (message: string) => void;
};

export type Webhook = {
  stop(): Promise<void>;
  pollNow(): Promise<void>;
  /** Resolves when the deliveries under way (with their retries) are done. */
  flush(): Promise<void>;
};

export function flagKey(f: Flag): string {
  return [
    f.kind,
    f.tool,
    f.version ?? '',
    f.traceId ?? '',
    f.conversationId ?? '',
    (f.evidence.schemaHashes ?? []).join(','),
    f.evidence.inputHash ?? '',
  ].join('\u0000');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function startWebhook(storage: Storage, url: string, options: WebhookOptions = {}): Webhook {
  const interval = options.intervalMs ?? 5000;
  const attempts = options.maxAttempts ?? 5;
  const backoff = options.backoffMs ?? 1000;
  const windowMs = options.windowMs ?? 86_400_000;
  const sent = new Set<string>();
  let seeded = false;
  let stopped = false;
  let running: Promise<void> | undefined;
  const deliveries = new Set<Promise<void>>();

  const deliver = async (flag: Flag, wasted: TotalWasted | undefined): Promise<void> => {
    let problem = 'stopped';
    for (let attempt = 1; attempt <= attempts && !stopped; attempt++) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'toolscope-collector' },
          body: JSON.stringify({ type: 'toolscope.flag', flag, ...(wasted ? { wasted } : {}) }),
          signal: AbortSignal.timeout(10_000),
        });
        await res.arrayBuffer();
        if (res.ok) return;
        problem = `answered ${res.status}`;
        if (res.status < 500 && res.status !== 429) {
          options.onError?.(`alert webhook answered ${res.status}; not retrying`);
          return;
        }
      } catch (error) {
        // Network errors are retried like 5xx; the last one is reported if every attempt fails.
        const cause = error instanceof Error ? (error.cause ?? error) : error;
        problem = cause instanceof Error ? cause.message : String(cause);
      }
      await sleep(backoff * 2 ** (attempt - 1));
    }
    options.onError?.(
      `alert webhook: gave up on a ${flag.kind} flag after ${attempts} attempts (last: ${problem})`,
    );
  };

  const poll = async (): Promise<void> => {
    const untilNs = BigInt(Date.now()) * 1_000_000n;
    let flags: Flag[];
    try {
      flags = await flagsOf(
        storage,
        untilNs - BigInt(windowMs) * 1_000_000n,
        untilNs + 60_000_000_000n,
        {},
      );
    } catch (error) {
      options.onError?.(
        `alert webhook: cannot read flags: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    // The loop cost already posted (or there at the start) for the window, each wasted call once.
    const posted = new WasteSum();
    const fresh: Flag[] = [];
    for (const flag of flags) {
      const key = flagKey(flag);
      if (sent.has(key)) posted.add(flag);
      else {
        sent.add(key);
        fresh.push(flag);
      }
    }
    for (const flag of seeded ? fresh : []) {
      let wasted: TotalWasted | undefined;
      if (flag.evidence.wasted) {
        const before = posted.total();
        posted.add(flag);
        wasted = wastedDelta(before, posted.total());
      }
      const d = deliver(flag, wasted).finally(() => deliveries.delete(d));
      deliveries.add(d);
    }
    seeded = true;
  };

  const tick = () => {
    if (stopped || running) return;
    running = poll().finally(() => {
      running = undefined;
    });
  };
  const timer = setInterval(tick, interval);
  timer.unref();
  tick();
  return {
    flush: async () => {
      while (deliveries.size > 0) await Promise.allSettled([...deliveries]);
    },
    pollNow: async () => {
      await running;
      await poll();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await Promise.allSettled([...deliveries]);
    },
  };
}
