// POST /v1/traces: OTLP/HTTP as the specification says (protobuf and JSON, gzip, response in the request's
// encoding, partial success, 400/413/415/429/503), answering 200 only after the spans are committed.
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COLLECTOR_ERRORS, type CollectorErrorCode } from '../errors.js';
import type { BodyBudget } from '../ingest/body-budget.js';
import { type IntakeOptions, takeInDecoded } from '../ingest/intake.js';
import { decodeJson } from '../otlp/decode-json.js';
import { decodeProtobuf } from '../otlp/decode-proto.js';
import { CONTENT_TYPES, type Encoding, exportResponse, statusBody } from '../otlp/responses.js';

export type OtlpRouteOptions = IntakeOptions & {
  maxBodyBytes: number;
  budget: BodyBudget;
  retryAfterSeconds: number;
};

/** Error for bodies that do not fit the in-flight budget now; the app's error handler answers 429. */
export const BODIES_IN_FLIGHT = 'TOOLSCOPE_BODIES_IN_FLIGHT';
const BUSY_MESSAGE = 'too many request bytes in flight: retry after the indicated delay';
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

type Gunzip =
  | { ok: true; body: Buffer }
  | {
      ok: false;
      error: 'INVALID_OTLP' | 'PAYLOAD_TOO_LARGE' | 'BODIES_IN_FLIGHT';
      message: string;
    };

/**
 * Inflates at most `limit` bytes, and at most what the budget has room for: the room is reserved before
 * inflating (concurrent inflations would each see the same room otherwise) and the unused part given back.
 */
async function gunzipBounded(
  body: Buffer,
  limit: number,
  budget: BodyBudget,
  request: IncomingMessage,
): Promise<Gunzip> {
  const cap = budget.takeUpTo(request, limit);
  if (cap <= 0) return { ok: false, error: 'BODIES_IN_FLIGHT', message: BUSY_MESSAGE };
  const result = await new Promise<Gunzip>((resolve) => {
    // maxOutputLength stops inflating at the cap: a gzip bomb costs at most `cap` bytes of memory.
    gunzip(body, { maxOutputLength: cap }, (error, out) => {
      if (!error) resolve({ ok: true, body: out });
      else if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') {
        resolve({ ok: false, error: 'INVALID_OTLP', message: 'invalid gzip body' });
      } else if (cap < limit) {
        // Over what was free but maybe not over the limit: later, with other bodies gone, it may fit.
        resolve({ ok: false, error: 'BODIES_IN_FLIGHT', message: BUSY_MESSAGE });
      } else {
        resolve({
          ok: false,
          error: 'PAYLOAD_TOO_LARGE',
          message: `decompressed body is larger than ${limit} bytes`,
        });
      }
    });
  });
  budget.giveBack(request, result.ok ? cap - result.body.length : cap);
  return result;
}

/** Counts a body without a Content-Length against the budget as its chunks arrive. */
function counted(payload: NodeJS.ReadableStream, take: (bytes: number) => boolean) {
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
      setImmediate(() => stream.destroy(busy()));
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
      if (declared <= opts.maxBodyBytes && !budget.take(raw, declared)) throw busy();
      return payload;
    }
    return counted(payload, (bytes) => budget.take(raw, bytes));
  };

  app.post('/v1/traces', { preParsing }, async (request: FastifyRequest, reply: FastifyReply) => {
    const encoding = encodingOf(request.headers['content-type']);
    if (!encoding) {
      return fail(
        reply,
        'json',
        'UNSUPPORTED_MEDIA_TYPE',
        'unsupported content type: send application/x-protobuf or application/json',
      );
    }
    let body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const contentEncoding = (request.headers['content-encoding'] ?? 'identity')
      .toLowerCase()
      .trim();
    if (contentEncoding === 'gzip') {
      const out = await gunzipBounded(body, opts.maxBodyBytes, budget, request.raw);
      if (!out.ok) {
        if (out.error === 'BODIES_IN_FLIGHT')
          reply.header('retry-after', spreadRetryAfter(opts.retryAfterSeconds));
        return fail(reply, encoding, out.error, out.message);
      }
      body = out.body;
    } else if (contentEncoding !== 'identity' && contentEncoding !== '') {
      return fail(
        reply,
        encoding,
        'UNSUPPORTED_MEDIA_TYPE',
        'unsupported content encoding: use gzip or none',
      );
    }
    // Waits holding only what the answer needs, not the decoded batch (intake.ts).
    const taken = takeInDecoded(
      encoding === 'protobuf' ? decodeProtobuf(body) : decodeJson(body),
      { protocol: 'http', encoding },
      opts,
    );
    if (!taken.ok) return fail(reply, encoding, 'INVALID_OTLP', taken.message);
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
      if (reason === 'full') return fail(reply, encoding, 'QUEUE_FULL', 'write queue is full');
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
  });

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
