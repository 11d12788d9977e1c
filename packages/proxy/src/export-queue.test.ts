// The export queue against a real OTLP exporter and a collector that takes connections and never answers: the
// queue stays bounded (spans beyond it dropped and counted, said once), and shutdown keeps its deadline.

import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from './log.js';
import { ProxyTelemetry } from './telemetry.js';

const held: Socket[] = [];
const blackHole = createServer((socket) => held.push(socket));
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => {
  for (const s of held) s.destroy();
  blackHole.close();
});

describe('ExportQueue', () => {
  it('drops and counts spans beyond its bound while the collector hangs, and stops by its deadline', async () => {
    const lines: string[] = [];
    const telemetry = new ProxyTelemetry({
      url,
      serviceName: 'queue-test',
      fallbackService: 'unused',
      log: createLogger('info', (line) => lines.push(line)),
      queue: { maxQueue: 20, maxBatch: 5, delayMs: 10 },
    });
    const tracer = telemetry.session().tracer();
    for (let i = 0; i < 100; i++) tracer.startSpan(`s${i}`).end();
    const stats = telemetry.stats();
    // One batch of 5 went to the hanging export; 20 wait; the other 75 were dropped.
    expect(stats).toMatchObject({ exported: 0, queued: 20, dropped: 75 });
    expect(lines.filter((l) => l.includes('span queue full'))).toHaveLength(1);
    const started = Date.now();
    await telemetry.shutdown(300);
    // The deadline is the caller's bound: the hanging export is left behind, the queue counted as dropped.
    // Without the deadline it would wait for the exporter's own 5 s timeout.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(telemetry.stats()).toMatchObject({ exported: 0, queued: 0, dropped: 95 });
  });
});
