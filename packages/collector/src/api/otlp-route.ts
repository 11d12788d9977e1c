// POST /v1/traces: OTLP/HTTP as the specification says (protobuf and JSON, gzip, response in the request's
// encoding, partial success, 400/413/415/429/503), answering 200 only after the spans are committed.
import { gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WriteQueue } from '../ingest/write-queue.js';
import { decodeJson } from '../otlp/decode-json.js';
import { decodeProtobuf } from '../otlp/decode-proto.js';
import {
  CONTENT_TYPES,
  type Encoding,
  exportResponse,
  RPC_CODE,
  statusBody,
} from '../otlp/responses.js';

export type OtlpRouteOptions = {
  queue: WriteQueue;
  maxBodyBytes: number;
  retryAfterSeconds: number;
};

type Gunzip = { ok: true; body: Buffer } | { ok: false; status: 400 | 413; message: string };

function gunzipBounded(body: Buffer, limit: number): Promise<Gunzip> {
  return new Promise((resolve) => {
    // maxOutputLength stops inflating at the limit: a gzip bomb costs at most `limit` bytes of memory.
    gunzip(body, { maxOutputLength: limit }, (error, out) => {
      if (!error) resolve({ ok: true, body: out });
      else if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        resolve({
          ok: false,
          status: 413,
          message: `decompressed body is larger than ${limit} bytes`,
        });
      } else resolve({ ok: false, status: 400, message: 'invalid gzip body' });
    });
  });
}

function encodingOf(contentType: string | undefined): Encoding | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

export function registerOtlpRoute(app: FastifyInstance, opts: OtlpRouteOptions): void {
  const fail = (
    reply: FastifyReply,
    encoding: Encoding,
    status: number,
    code: number,
    message: string,
  ) =>
    reply
      .code(status)
      .type(CONTENT_TYPES[encoding])
      .send(statusBody(encoding, code, message));

  app.post('/v1/traces', async (request: FastifyRequest, reply: FastifyReply) => {
    const encoding = encodingOf(request.headers['content-type']);
    if (!encoding) {
      return fail(
        reply,
        'json',
        415,
        RPC_CODE.INVALID_ARGUMENT,
        'unsupported content type: send application/x-protobuf or application/json',
      );
    }
    let body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const contentEncoding = (request.headers['content-encoding'] ?? 'identity')
      .toLowerCase()
      .trim();
    if (contentEncoding === 'gzip') {
      const out = await gunzipBounded(body, opts.maxBodyBytes);
      if (!out.ok) return fail(reply, encoding, out.status, RPC_CODE.INVALID_ARGUMENT, out.message);
      body = out.body;
    } else if (contentEncoding !== 'identity' && contentEncoding !== '') {
      return fail(
        reply,
        encoding,
        415,
        RPC_CODE.INVALID_ARGUMENT,
        'unsupported content encoding: use gzip or none',
      );
    }
    const decoded = encoding === 'protobuf' ? decodeProtobuf(body) : decodeJson(body);
    if (!decoded.ok) return fail(reply, encoding, 400, RPC_CODE.INVALID_ARGUMENT, decoded.message);
    const { spans, rejected, errors } = decoded.batch;
    if (spans.length > 0) {
      const queued = opts.queue.enqueue(spans);
      if (!queued.ok) {
        const full = queued.reason === 'full';
        // Spread the retries: every refused exporter coming back after exactly the same delay would meet a
        // full queue again together.
        const delay = full
          ? opts.retryAfterSeconds + Math.floor(Math.random() * 3)
          : opts.retryAfterSeconds;
        reply.header('retry-after', String(delay));
        return fail(
          reply,
          encoding,
          full ? 429 : 503,
          full ? RPC_CODE.RESOURCE_EXHAUSTED : RPC_CODE.UNAVAILABLE,
          full ? 'write queue is full' : 'collector is shutting down',
        );
      }
      try {
        await queued.committed;
      } catch (error) {
        request.log.error({ err: error }, 'storage write failed');
        reply.header('retry-after', String(opts.retryAfterSeconds));
        return fail(
          reply,
          encoding,
          503,
          RPC_CODE.UNAVAILABLE,
          'storage cannot accept writes right now',
        );
      }
    }
    return reply
      .code(200)
      .type(CONTENT_TYPES[encoding])
      .send(exportResponse(encoding, rejected, errors.join('; ')));
  });

  app.route({
    method: ['GET', 'PUT', 'DELETE', 'PATCH'],
    url: '/v1/traces',
    handler: (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .type('application/json')
        .send(statusBody('json', RPC_CODE.INVALID_ARGUMENT, 'method not allowed: use POST')),
  });
}
