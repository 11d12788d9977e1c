// POST /v1/traces: OTLP/HTTP as the specification says (protobuf and JSON, gzip, response in the request's
// encoding, partial success, 400/413/415/429/503), answering 200 only after the spans are committed.
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COLLECTOR_ERRORS, type CollectorErrorCode } from '../errors.js';
import type { BodyBudget } from '../ingest/body-budget.js';
import { BUSY_MESSAGE, inflateBounded } from '../ingest/bounded-inflate.js';
import {
  type IntakeOptions,
  type RefusalReason,
  type Taken,
  takeInDecoded,
} from '../ingest/intake.js';
import type { MemoryLimiter } from '../ingest/memory-limiter.js';
import { decodeJson } from '../otlp/decode-json.js';
import { decodeProtobuf } from '../otlp/decode-proto.js';
import { CONTENT_TYPES, type Encoding, exportResponse, statusBody } from '../otlp/responses.js';

export type OtlpRouteOptions = IntakeOptions & {
  maxBodyBytes: number;
  budget: BodyBudget;
  retryAfterSeconds: number;
  /** Refuses requests before they are read while the process is over its soft memory limit. */
  memory?: MemoryLimiter | undefined;
};

/** Error for bodies that do not fit the in-flight budget now; the app's error handler answers 429. */
export const BODIES_IN_FLIGHT = 'TOOLSCOPE_BODIES_IN_FLIGHT';
const busy = () =>
  Object.assign(new Error(BUSY_MESSAGE), {
    statusCode: COLLECTOR_ERRORS.BODIES_IN_FLIGHT.status,
    code: BODIES_IN_FLIGHT,
  });

/**
 * Retry-After for a 429: spread over a few seconds, since every refused exporter coming back after exactly the
 * same delay would meet a full queue or budget again together.
 */
export const spreadRetryAfter = (baseSeconds: number) =>
  String(baseSeconds + Math.floor(Math.random() * 3));

/** Counts a body without a Content-Length against the budget as its chunks arrive. */
function counted(
  payload: NodeJS.ReadableStream,
  take: (bytes: number) => boolean,
  refuse: () => Error,
) {
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (take(chunk.length)) {
        callback(null, chunk);
        return;
      }
      // Data can flow before fastify listens for this stream's errors (pipe resumes on the next tick, the
      // hook resolves later): stop the flow now and fail the stream once its reader is listening.
      payload.unpipe(stream);
      payload.pause();
      callback();
      setImmediate(() => stream.destroy(refuse()));
    },
  });
  payload.on('error', (error) => stream.destroy(error));
  return payload.pipe(stream);
}

export function encodingOf(contentType: string | undefined): Encoding | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** A request's body taken in (what its answer needs and the commit to wait for), or why it was not. */
type Received = Taken | { ok: false; error: CollectorErrorCode; message: string };

/**
 * Reads, inflates, decodes and takes in a request's body. The body leaves the request here and dies with this
 * function, before the handler waits for the commit: fastify's request keeps its body until the answer is sent,
 * and a handler's variable would keep it across the wait too. Held that long, under bench:ingest at the default
 * memory limit, the bodies outlived the HTTP thread's young generation and stayed, dead, until a full collection:
 * 30-35 MiB of array buffers, the limit met and a third of the requests refused
 * (docs/decisions/0073-bodies-let-go-before-the-commit.md).
 */
async function receive(
  request: FastifyRequest,
  encoding: Encoding,
  opts: OtlpRouteOptions,
): Promise<Received> {
  const read = request.body;
  request.body = undefined;
  let body = Buffer.isBuffer(read) ? read : Buffer.alloc(0);
  const contentEncoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  if (contentEncoding === 'gzip') {
    const out = await inflateBounded(body, 'gzip', opts.maxBodyBytes, opts.budget, request.raw);
    if (!out.ok) return out;
    body = out.body;
  } else if (contentEncoding !== 'identity' && contentEncoding !== '') {
    return {
      ok: false,
      error: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'unsupported content encoding: use gzip or none',
    };
  }
  const taken = takeInDecoded(
    encoding === 'protobuf' ? decodeProtobuf(body) : decodeJson(body),
    { protocol: 'http', encoding },
    opts,
  );
  return taken.ok ? taken : { ok: false, error: 'INVALID_OTLP', message: taken.message };
}

export function registerOtlpRoute(app: FastifyInstance, opts: OtlpRouteOptions): void {
  /** An OTLP failure: status and google.rpc code from the error table, the body in the request's encoding. */
  const fail = (
    reply: FastifyReply,
    encoding: Encoding,
    error: CollectorErrorCode,
    message: string,
  ) =>
    reply
      .code(COLLECTOR_ERRORS[error].status)
      .type(CONTENT_TYPES[encoding])
      .send(statusBody(encoding, COLLECTOR_ERRORS[error].rpc, message));

  const { budget } = opts;
  const refused = (reason: RefusalReason) =>
    opts.metrics.requestsRefused.inc({ protocol: 'http', reason });
  const overBudget = () => {
    refused('bodies_in_flight');
    return busy();
  };

  /**
   * Past the soft memory limit, or with the write queue full already, a request is refused before a byte of its
   * body is read: decoding it only to refuse it would spend the time the queue needs to drain.
   */
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const overMemory = opts.memory !== undefined && !opts.memory.admit();
    if (!overMemory && !opts.queue.full) return;
    refused(overMemory ? 'memory_limit' : 'queue_full');
    const code = overMemory ? 'MEMORY_LIMIT' : 'QUEUE_FULL';
    await fail(
      reply.header('retry-after', spreadRetryAfter(opts.retryAfterSeconds)),
      encodingOf(request.headers['content-type']) ?? 'json',
      code,
      COLLECTOR_ERRORS[code].message,
    );
  };

  const preParsing = async (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: NodeJS.ReadableStream,
  ) => {
    const { raw } = request;
    // 'close' comes once the answer is sent or the connection is gone, whichever way the request ended.
    reply.raw.once('close', () => budget.release(raw));
    const declared = Number(request.headers['content-length']);
    if (Number.isSafeInteger(declared) && declared >= 0) {
      // Over the body limit: fastify answers 413 without reading it, so nothing is held for it.
      // The app's error handler answers the thrown error: 429 with Retry-After.
      if (declared <= opts.maxBodyBytes && !budget.take(raw, declared)) throw overBudget();
      return payload;
    }
    return counted(payload, (bytes) => budget.take(raw, bytes), overBudget);
  };

  app.post(
    '/v1/traces',
    { onRequest, preParsing },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const encoding = encodingOf(request.headers['content-type']);
      if (!encoding) {
        return fail(
          reply,
          'json',
          'UNSUPPORTED_MEDIA_TYPE',
          'unsupported content type: send application/x-protobuf or application/json',
        );
      }
      const taken = await receive(request, encoding, opts);
      // The body died with receive: what waits for the commit is counted as pending spans, not as bytes in
      // flight, which would refuse other requests for bodies no longer held (--max-inflight-mb).
      budget.release(request.raw);
      if (!taken.ok) {
        if (taken.error === 'BODIES_IN_FLIGHT') {
          refused('bodies_in_flight');
          reply.header('retry-after', spreadRetryAfter(opts.retryAfterSeconds));
        }
        return fail(reply, encoding, taken.error, taken.message);
      }
      const { rejected, errors } = taken;
      const outcome = await taken.outcome;
      if (!outcome.ok) {
        const { reason } = outcome;
        // A full queue clears soon (spread the retries); closing and storage failures take longer.
        reply.header(
          'retry-after',
          reason === 'full'
            ? spreadRetryAfter(opts.retryAfterSeconds)
            : String(opts.retryAfterSeconds),
        );
        if (reason === 'full') {
          refused('queue_full');
          return fail(reply, encoding, 'QUEUE_FULL', 'write queue is full');
        }
        return fail(
          reply,
          encoding,
          reason === 'closed' ? 'SHUTTING_DOWN' : 'STORAGE_UNAVAILABLE',
          reason === 'closed'
            ? 'collector is shutting down'
            : 'storage cannot accept writes right now',
        );
      }
      return reply
        .code(200)
        .type(CONTENT_TYPES[encoding])
        .send(exportResponse(encoding, rejected, errors.join('; ')));
    },
  );

  app.route({
    method: ['GET', 'PUT', 'DELETE', 'PATCH'],
    url: '/v1/traces',
    handler: (_request, reply) =>
      fail(
        reply.header('allow', 'POST'),
        'json',
        'METHOD_NOT_ALLOWED',
        'method not allowed: use POST',
      ),
  });
}
