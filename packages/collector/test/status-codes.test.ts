// Every status of the OTLP/HTTP contract, each in the request's own encoding where the spec says so.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../src/index.js';
import { ExportTraceServiceResponse, RpcStatus } from '../src/otlp/proto.js';
import { jsonBody, postJson, startTestCollector, type TestCollector } from './harness.js';

let collector: TestCollector;
beforeAll(async () => {
  collector = await startTestCollector({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => collector.stop());

const post = (body: Uint8Array | string, headers: Record<string, string>) =>
  fetch(`${collector.url}/v1/traces`, { method: 'POST', headers, body });

describe('POST /v1/traces status codes', () => {
  it('200 with an empty JSON body object for a clean JSON request', async () => {
    const res = await postJson(collector.url, jsonBody(1, 3));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({});
  });

  it('200 with an empty ExportTraceServiceResponse for an empty protobuf request', async () => {
    const res = await post(new Uint8Array(0), { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(
      ExportTraceServiceResponse.toObject(
        ExportTraceServiceResponse.decode(new Uint8Array(await res.arrayBuffer())),
      ),
    ).toEqual({});
  });

  it('200 with partial success naming how many spans were refused and why', async () => {
    const body = jsonBody(2, 3, (i) =>
      i === 1 ? { spanId: 'zz' } : i === 2 ? { traceId: '0'.repeat(32) } : {},
    );
    const res = await postJson(collector.url, body);
    expect(res.status).toBe(200);
    const json = (await res.json()) as {
      partialSuccess: { rejectedSpans: string; errorMessage: string };
    };
    expect(json.partialSuccess.rejectedSpans).toBe('2');
    expect(json.partialSuccess.errorMessage).toContain('invalid span_id');
    expect(json.partialSuccess.errorMessage).toContain('invalid trace_id');
  });

  it('400 with a google.rpc.Status for undecodable protobuf, in protobuf', async () => {
    const res = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), {
      'content-type': 'application/x-protobuf',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const status = RpcStatus.toObject(
      RpcStatus.decode(new Uint8Array(await res.arrayBuffer())),
    ) as { code: number; message: string };
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/invalid protobuf/);
  });

  it('400 with a JSON Status for invalid JSON', async () => {
    const res = await postJson(collector.url, '{"resourceSpans": [');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 3,
      message: expect.stringMatching(/invalid JSON/),
    });
  });

  it('413 when the raw body is over the limit', async () => {
    const res = await postJson(
      collector.url,
      JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(70 * 1024) }),
    );
    expect(res.status).toBe(413);
  });

  it('413 when a small gzip body inflates over the limit (a gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await post(bomb, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ message: expect.stringMatching(/larger than/) });
  });

  it('415 for an unknown content type or encoding', async () => {
    expect((await post('x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(
      (await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' })).status,
    ).toBe(415);
  });

  it('405 with Allow for other methods', async () => {
    const res = await fetch(`${collector.url}/v1/traces`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('backpressure', () => {
  it('429 with Retry-After when more spans arrive than the writer has committed', async () => {
    const c = await startTestCollector({ maxPendingSpans: 10 });
    // Eight requests in one turn (inject skips the sockets): all are decoded before the writer's next commit.
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        c.app.inject({
          method: 'POST',
          url: '/v1/traces',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(jsonBody(100 + i, 5)),
        }),
      ),
    );
    const statuses = replies.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    for (const r of replies)
      if (r.statusCode === 429) expect(['1', '2', '3']).toContain(r.headers['retry-after']);
    // What was acknowledged is stored; what was refused is not.
    const stored = await Promise.all(
      [100, 101, 102].map((seed) =>
        fetch(`${c.url}/api/traces/${seed.toString(16).padStart(32, '0')}`),
      ),
    );
    expect(stored.map((r) => r.status)).toEqual([200, 200, 404]);
    await c.stop();
  });
});

describe('bodies in flight', () => {
  it('429 with Retry-After while other requests hold the in-flight budget, counted also without Content-Length', async () => {
    const c = await startTestCollector({ maxInflightBytes: 256 * 1024, maxBodyBytes: 1024 * 1024 });
    const body = Buffer.from(JSON.stringify(jsonBody(300, 1)));
    // A chunked upload (no Content-Length) that sends 200 KiB of leading spaces and then waits: it holds them.
    let answer!: (res: IncomingMessage) => void;
    const held = new Promise<IncomingMessage>((resolve) => {
      answer = resolve;
    });
    const slow = httpRequest(`${c.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    slow.on('response', answer);
    slow.write(Buffer.alloc(200 * 1024, 0x20));
    const deadline = Date.now() + 5000;
    const inFlight = async () =>
      ((await (await fetch(`${c.url}/api/health`)).json()) as { bodyBytesInFlight: number })
        .bodyBytesInFlight;
    while ((await inFlight()) < 200 * 1024 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await inFlight()).toBe(200 * 1024);

    // With a Content-Length over what is left: refused before reading, in the request's encoding.
    const declared = await fetch(`${c.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array(100 * 1024),
    });
    expect(declared.status).toBe(429);
    expect(['1', '2', '3']).toContain(declared.headers.get('retry-after'));
    expect(declared.headers.get('content-type')).toBe('application/x-protobuf');
    expect(RpcStatus.decode(new Uint8Array(await declared.arrayBuffer()))).toMatchObject({
      code: 8,
      message: expect.stringMatching(/in flight/),
    });
    // Without a Content-Length: refused once its chunks no longer fit.
    const chunked = await fetch(`${c.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([Buffer.alloc(100 * 1024, 0x20)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(429);
    expect(chunked.headers.get('retry-after')).toMatch(/^\d+$/);
    // A request that fits still goes through, and the held one completes once its body ends.
    expect((await postJson(c.url, jsonBody(301, 1))).status).toBe(200);
    slow.end(body);
    expect((await held).statusCode).toBe(200);
    while ((await inFlight()) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await inFlight()).toBe(0);
    expect(c.bodyBudget.stats.peakBytes).toBeLessThanOrEqual(256 * 1024);
    await c.stop();
  });
});

describe('bodies waiting for their commit', () => {
  it('hold no in-flight bytes: a body leaves the budget once decoded, not when its commit is answered', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let writes = 0;
    const owner = await startTestCollector();
    const real = owner.storage;
    const gated: Storage = {
      ...real,
      write: async (spans) => {
        writes++;
        await gate;
        return real.write(spans);
      },
    };
    const c = await startTestCollector({
      storage: gated,
      maxInflightBytes: 256 * 1024,
      maxBodyBytes: 1024 * 1024,
    });
    const inFlight = async () =>
      ((await (await fetch(`${c.url}/api/health`)).json()) as { bodyBytesInFlight: number })
        .bodyBytesInFlight;
    // JSON bodies led by spaces: 200 KiB, then 100 KiB, more than the 256 KiB budget together.
    const padded = (kib: number, seed: number) =>
      Buffer.concat([
        Buffer.alloc(kib * 1024, 0x20),
        Buffer.from(JSON.stringify(jsonBody(seed, 1))),
      ]);
    const post = (body: Buffer) =>
      fetch(`${c.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const first = post(padded(200, 320));
    const deadline = Date.now() + 10_000;
    while (writes === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(writes).toBe(1);
    // Its spans wait in the store's write; its body is no longer held, nor counted.
    expect(await inFlight()).toBe(0);
    const second = post(padded(100, 321));
    open();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(c.bodyBudget.stats.peakBytes).toBeLessThan(256 * 1024);
    await c.stop();
    await owner.stop();
  });
});

describe('storage faults', () => {
  it('503 with Retry-After when the storage cannot write, and 200 again once it can', async () => {
    let broken = true;
    const owner = await startTestCollector();
    const real = owner.storage;
    const flaky: Storage = {
      ...real,
      write: (spans) => {
        if (broken) throw new Error('disk I/O error');
        return real.write(spans);
      },
    };
    const c = await startTestCollector({ storage: flaky });
    const failed = await postJson(c.url, jsonBody(4, 2));
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    broken = false;
    expect((await postJson(c.url, jsonBody(4, 2))).status).toBe(200);
    await c.stop();
    await owner.stop();
  });
});
