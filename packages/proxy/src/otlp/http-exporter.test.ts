// The proxy's OTLP exporter against a real HTTP server: the OTLP variables it reads (headers, gzip) and the
// exporter's retry of a 503 within its timeout, as the OTel JS exporter behaves.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOtlpExporter } from './http-exporter.js';

const seen: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
let answers: number[] = [];
const collector = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    seen.push({ headers: req.headers, body: Buffer.concat(parts) });
    res.writeHead(answers.shift() ?? 200, { 'retry-after': '0' });
    res.end();
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => {
  collector.close();
});

describe('the OTLP exporter', () => {
  it('sends the OTLP headers (the traces variable over the shared one) and gzips when told to', async () => {
    seen.length = 0;
    const exporter = createOtlpExporter(url, 2000, {
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20shared,x-team=a',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20tok',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    const body = Buffer.from('0a00', 'hex');
    expect(await exporter.export(body)).toEqual({ ok: true });
    await exporter.shutdown();
    const [request] = seen;
    expect(request?.headers.authorization).toBe('Bearer tok');
    expect(request?.headers['x-team']).toBe('a');
    expect(request?.headers['content-type']).toBe('application/x-protobuf');
    expect(request?.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(request?.body ?? Buffer.alloc(0)).equals(body)).toBe(true);
  });

  it('retries a 503 and reports a 400 as failed without retrying', async () => {
    seen.length = 0;
    answers = [503, 200];
    const exporter = createOtlpExporter(url, 3000, {});
    expect(await exporter.export(Buffer.from('0a00', 'hex'))).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    answers = [400];
    const failed = await exporter.export(Buffer.from('0a00', 'hex'));
    expect(failed.ok).toBe(false);
    expect(seen).toHaveLength(3);
    await exporter.shutdown();
  });
});
