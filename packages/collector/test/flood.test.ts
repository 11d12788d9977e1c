// The memory limit under a flood (issue 45): a `toolscope serve` process with --memory-limit-mib gets OTLP/HTTP
// and OTLP/gRPC requests at once from a load generator far faster than it (bench/flood-load.ts: ids rewritten in
// place, each connection sending again as soon as it is answered), on each backend, for TOOLSCOPE_FLOOD_SECONDS
// (default 10 s, past the few seconds in which the resident set reaches its plateau; `pnpm flood` runs a minute).
// The process's peak resident set, read from /proc outside it, stays within the limit; every refusal is a 429
// with Retry-After or a RESOURCE_EXHAUSTED with RetryInfo, counted in /metrics; every acknowledged span is stored.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FloodBatches, floodGrpc, floodHttp } from '../bench/flood-load.js';
import { sampleRss, statusMiB } from '../bench/process-memory.js';
import type { ToolsResponse } from '../src/api/schemas.js';
import { BACKENDS } from './backends.js';
import { servedCollectors } from './served.js';

/**
 * The limit the test holds the collector to. It runs from sources under tsx, whose loader threads and compiled
 * sources take more than the built collector (135-170 MiB at start against 100, about 240 MiB against 155 once
 * it has stored for a while): `pnpm flood` runs the built one at the default, 200 MiB. Under this flood on a loaded
 * machine the resident set passed the soft limit (four fifths) by 25-50 MiB at most.
 */
const LIMIT_MIB = 360;
const SECONDS = Number(process.env.TOOLSCOPE_FLOOD_SECONDS ?? 10);
const HTTP_CONNECTIONS = 64;
/**
 * The write queue's bound, below the 80 requests of 512 spans the generator keeps in flight: the limit at 360 MiB
 * would allow 28,800 spans, and on a loaded machine a starved generator kept fewer than that in flight, so a slow
 * PostgreSQL collector held everything within its memory and refused nothing (a CI run: 101 requests in 10 s,
 * 212 MiB). With this bound the flood is more than the collector holds by construction, on either backend.
 */
const MAX_PENDING_SPANS = 16_384;
const GRPC_CALLS = 16;

const served = servedCollectors('flood');

const metric = (text: string, name: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);

// The backends' floods run at the same time: the suite waits for one flood's length, not two.
describe.concurrent('flood within the memory limit', () => {
  for (const backend of BACKENDS) {
    it.skipIf(!backend.available)(
      `${backend.name}: keeps the peak resident set within ${LIMIT_MIB} MiB and stores every acknowledged span`,
      async () => {
        const store = await backend.location();
        const db = backend.name === 'sqlite' ? join(served.dir, 'flood.db') : store.db;
        const serve = await served.start(db, [
          ...['--memory-limit-mib', String(LIMIT_MIB), '--log-level', 'warn'],
          ...['--max-pending-spans', String(MAX_PENDING_SPANS)],
        ]);
        const { pid, grpcPort } = serve;
        const atStart = statusMiB(pid, 'VmRSS');
        const batches = new FloodBatches(64);
        const end = Date.now() + SECONDS * 1000;
        const done = () => Date.now() >= end;
        const sampler = sampleRss(pid, 500);
        const [http, grpc] = await Promise.all([
          floodHttp(serve.url, { batches, concurrency: HTTP_CONNECTIONS, done }),
          floodGrpc(grpcPort, { batches, concurrency: GRPC_CALLS, channels: 4, done }),
        ]);
        const peak = statusMiB(pid, 'VmHWM');
        const samples = sampler.stop();
        const tools = (await (
          await fetch(`${serve.url}/api/tools?since=1h`)
        ).json()) as ToolsResponse;
        const storedToolSpans = tools.tools.reduce((sum, t) => sum + t.calls, 0);
        const metrics = await (await fetch(`${serve.url}/metrics`)).text();
        process.stdout.write(
          `\nflood (${backend.name}, ${SECONDS} s, batches of ${batches.spans} spans, ${batches.bytes} bytes): ` +
            `peak RSS ${peak.toFixed(0)} MiB (${atStart.toFixed(0)} at start, limit ${LIMIT_MIB}; every 0.5 s: ` +
            `${samples.join(' ')}); ` +
            `HTTP ${JSON.stringify(http.answers)}, gRPC ${JSON.stringify(grpc.answers)}; ` +
            `${http.ackedSpans + grpc.ackedSpans} spans acknowledged, ` +
            `${metric(metrics, 'toolscope_spans_stored_total')} stored; refused by reason: ` +
            `${metrics
              .split('\n')
              .filter((l) => l.startsWith('toolscope_ingest_requests_refused_total'))
              .join(', ')}\n`,
        );
        // Only acknowledgements and refusals with a retry hint: nothing failed, nothing was cut off.
        // (503: storage took longer than its statement bound on a loaded machine; also with Retry-After.)
        expect(['200', '429', '503']).toEqual(expect.arrayContaining(Object.keys(http.answers)));
        expect(http.hinted).toBe((http.answers['429'] ?? 0) + (http.answers['503'] ?? 0));
        // Under a flood either protocol may find the limit met whenever it asks: answers are checked, not fairness.
        expect(['OK', 'RESOURCE_EXHAUSTED', 'UNAVAILABLE']).toEqual(
          expect.arrayContaining(Object.keys(grpc.answers)),
        );
        expect(grpc.hinted).toBe(
          (grpc.answers.RESOURCE_EXHAUSTED ?? 0) + (grpc.answers.UNAVAILABLE ?? 0),
        );
        expect(http.ackedBatches + grpc.ackedBatches).toBeGreaterThan(0);
        // Every acknowledged span is stored, and nothing that was refused.
        expect(storedToolSpans).toBe(http.ackedToolSpans + grpc.ackedToolSpans);
        expect(metric(metrics, 'toolscope_spans_stored_total')).toBe(
          http.ackedSpans + grpc.ackedSpans,
        );
        // More was offered than the collector holds: refusals, each counted under its reason. Whether memory is
        // among the reasons depends on timing this test cannot see: the limiter refuses for memory only while
        // work is in flight past the soft limit, read every 100 ms, and a peak sampled from outside near the
        // window's end may fall between its readings (memory-limit.test.ts checks memory refusals alone).
        const refused = (protocol: string, reason: string) =>
          metric(
            metrics,
            `toolscope_ingest_requests_refused_total{protocol="${protocol}",reason="${reason}"}`,
          );
        expect((http.answers['429'] ?? 0) + (grpc.answers.RESOURCE_EXHAUSTED ?? 0)).toBeGreaterThan(
          0,
        );
        const reasons = ['memory_limit', 'bodies_in_flight', 'queue_full'];
        expect(reasons.reduce((n, r) => n + refused('http', r), 0)).toBe(http.answers['429'] ?? 0);
        expect(reasons.reduce((n, r) => n + refused('grpc', r), 0)).toBe(
          grpc.answers.RESOURCE_EXHAUSTED ?? 0,
        );
        expect(metric(metrics, 'toolscope_memory_limit_bytes')).toBe(LIMIT_MIB * 1024 * 1024);
        expect(metric(metrics, 'toolscope_memory_resident_bytes')).toBeGreaterThan(0);
        expect(peak).toBeLessThanOrEqual(LIMIT_MIB);
        serve.child.kill('SIGTERM');
        await new Promise((resolve) => serve.child.once('exit', resolve));
        await store.drop();
      },
      60_000 + SECONDS * 1000,
    );
  }
});
