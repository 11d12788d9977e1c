// OTLP/gRPC: opentelemetry.proto.collector.trace.v1.TraceService/Export on its own port (--grpc-port), with the
// HTTP receiver's rules: the same token (as `authorization: Bearer` metadata), memory limit, body cap and
// in-flight budget, queue and acknowledgement after commit, and the status codes the OTLP specification gives for
// gRPC. Served on node:http2 rather than grpc-js's server, which reads and inflates every message before a
// handler sees the call: here the token and the memory limit are checked on the headers, before a byte of the
// message is read, and the message's declared length against the limit and the budget before it is buffered.
import type { Http2Server, Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { createServer } from 'node:http2';
import type { Socket } from 'node:net';
import type { BodyBudget } from '../ingest/body-budget.js';
import { inflateBounded } from '../ingest/bounded-inflate.js';
import {
  type IntakeOptions,
  type RefusalReason,
  type Taken,
  takeInDecoded,
} from '../ingest/intake.js';
import type { MemoryLimiter } from '../ingest/memory-limiter.js';
import { decodeProtobuf } from '../otlp/decode-proto.js';
import { exportResponse, retryStatus } from '../otlp/responses.js';
import type { TokenCheck } from './auth.js';
import {
  answerMessage,
  answerStatus,
  GRPC_STATUS,
  type GrpcStatus,
  readMessage,
} from './grpc-wire.js';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

const raw = (b: Buffer) => b;
/** The service with messages left as raw bytes, for grpc-js clients (tests, the flood benchmark). */
export const TRACE_SERVICE = {
  Export: {
    path: TRACE_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
} as const;

export type GrpcReceiverOptions = IntakeOptions & {
  host: string;
  port: number;
  maxBodyBytes: number;
  budget: BodyBudget;
  retryAfterSeconds: number;
  token: TokenCheck | undefined;
  memory?: MemoryLimiter | undefined;
  /** Told of a call that failed unexpectedly (answered INTERNAL), to log it with its cause. */
  onError?: (error: unknown) => void;
};

export type GrpcReceiver = { port: number; close(): Promise<void> };

/** Streams one connection may have open at once; a client with more waits for one to finish. */
const MAX_CONCURRENT_STREAMS = 128;

/** A failed bind as the HTTP listener's error looks: the system's code (EADDRINUSE, EACCES), host and port. */
function bindError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const code = error.code ?? 'EBIND';
  return Object.assign(new Error(`cannot listen for OTLP/gRPC on ${host}:${port} (${code})`), {
    code,
    address: host,
    port,
    syscall: 'listen',
  });
}

export async function startGrpcReceiver(o: GrpcReceiverOptions): Promise<GrpcReceiver> {
  const server = createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } });
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // A peer that breaks the protocol or vanishes ends its own session; nothing to log per connection.
    session.on('error', () => session.destroy());
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => stream.destroy());
    exportCall(stream, headers, o).catch((error: unknown) => {
      o.onError?.(error);
      answerStatus(stream, GRPC_STATUS.INTERNAL, 'internal error');
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(bindError(error, o.host, o.port)),
    );
    server.listen(o.port, o.host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : o.port);
    });
  });
  return { port, close: () => closeServer(server, sessions, sockets) };
}

/** A refusal with a RetryInfo, which OTLP exporters need to retry RESOURCE_EXHAUSTED. */
function refuseForNow(
  stream: ServerHttp2Stream,
  code: GrpcStatus,
  message: string,
  o: GrpcReceiverOptions,
) {
  answerStatus(stream, code, message, retryStatus(code, message, o.retryAfterSeconds));
}

async function exportCall(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  o: GrpcReceiverOptions,
): Promise<void> {
  const refused: Refused = (reason) => o.metrics.requestsRefused.inc({ protocol: 'grpc', reason });
  if (!String(headers['content-type'] ?? '').startsWith('application/grpc')) {
    // Not a gRPC call at all: the specification's answer is an HTTP status.
    if (!stream.headersSent && !stream.destroyed)
      stream.respond({ ':status': 415 }, { endStream: true });
    return;
  }
  if (headers[':method'] !== 'POST' || headers[':path'] !== TRACE_EXPORT_PATH) {
    answerStatus(stream, GRPC_STATUS.UNIMPLEMENTED, `no method ${String(headers[':path'])}`);
    return;
  }
  // Checked on the headers: an unauthenticated or refused call costs no more than its headers.
  if (o.token && !o.token(headers.authorization)) {
    answerStatus(stream, GRPC_STATUS.UNAUTHENTICATED, 'missing or wrong bearer token');
    return;
  }
  if (o.memory && !o.memory.admit()) {
    refused('memory_limit');
    refuseForNow(
      stream,
      GRPC_STATUS.RESOURCE_EXHAUSTED,
      'the collector is over its memory limit',
      o,
    );
    return;
  }
  // Decoding a message only to find the queue full would spend the time the queue needs to drain.
  if (o.queue.full) {
    refused('queue_full');
    refuseForNow(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, 'write queue is full', o);
    return;
  }
  const encoding = String(headers['grpc-encoding'] ?? 'identity');
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate') {
    answerStatus(stream, GRPC_STATUS.UNIMPLEMENTED, `unsupported grpc-encoding ${encoding}`);
    return;
  }
  const taken = await receiveMessage(stream, encoding, o, refused);
  if (!taken) return;
  const { rejected, errors } = taken;
  const outcome = await taken.outcome;
  if (outcome.ok) {
    answerMessage(stream, exportResponse('protobuf', rejected, errors.join('; ')) as Buffer);
    return;
  }
  // OTLP/gRPC: RESOURCE_EXHAUSTED is retried only with RetryInfo; UNAVAILABLE always is.
  if (outcome.reason === 'full') {
    refused('queue_full');
    refuseForNow(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, 'write queue is full', o);
    return;
  }
  const message =
    outcome.reason === 'closed'
      ? 'collector is shutting down'
      : 'storage cannot accept writes right now';
  refuseForNow(stream, GRPC_STATUS.UNAVAILABLE, message, o);
}

type Refused = (reason: RefusalReason) => void;

/**
 * Reads, inflates, decodes and takes in the call's message; undefined once the call is answered (refused,
 * unreadable). The message dies with this function, before the call waits for the commit, as the HTTP receiver's
 * body does (otlp-route.ts says what holding it across the wait cost).
 */
async function receiveMessage(
  stream: ServerHttp2Stream,
  encoding: 'identity' | 'gzip' | 'deflate',
  o: GrpcReceiverOptions,
  refused: Refused,
): Promise<Taken | undefined> {
  const key = {};
  stream.once('close', () => o.budget.release(key));
  const read = await readMessage(stream, {
    maxBytes: o.maxBodyBytes,
    take: (bytes) => o.budget.take(key, bytes),
  });
  if (!read.ok) {
    if (read.retry) refused('bodies_in_flight');
    if (read.retry) refuseForNow(stream, read.code, read.message, o);
    else answerStatus(stream, read.code, read.message);
    return undefined;
  }
  let body = read.body;
  if (read.compressed) {
    if (encoding === 'identity') {
      answerStatus(stream, GRPC_STATUS.INTERNAL, 'compressed message without grpc-encoding');
      return undefined;
    }
    const inflated = await inflateBounded(body, encoding, o.maxBodyBytes, o.budget, key);
    // The compressed bytes are not needed any more.
    o.budget.giveBack(key, body.length);
    if (!inflated.ok) {
      if (inflated.error === 'BODIES_IN_FLIGHT') {
        refused('bodies_in_flight');
        refuseForNow(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, inflated.message, o);
      } else if (inflated.error === 'PAYLOAD_TOO_LARGE') {
        answerStatus(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, inflated.message);
      } else answerStatus(stream, GRPC_STATUS.INVALID_ARGUMENT, inflated.message);
      return undefined;
    }
    body = inflated.body;
  }
  // The caller waits holding only what the answer needs, not the decoded batch (intake.ts), and so the message's
  // bytes leave the in-flight budget here, not when the call is answered after the commit.
  const taken = takeInDecoded(decodeProtobuf(body), { protocol: 'grpc', encoding: 'protobuf' }, o);
  o.budget.release(key);
  if (!taken.ok) {
    answerStatus(stream, GRPC_STATUS.INVALID_ARGUMENT, taken.message);
    return undefined;
  }
  return taken;
}

/** How long calls in flight get to finish when the collector stops, before their connections are cut. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Stops listening and ends every connection once its calls are answered (GOAWAY); connections still open after
 * the grace (a dead peer, one that never spoke HTTP/2) are cut.
 */
function closeServer(
  server: Http2Server,
  sessions: Set<Http2Session>,
  sockets: Set<Socket>,
): Promise<void> {
  return new Promise<void>((resolve) => {
    // A connection that never sent the HTTP/2 preface outlives its session's destroy(): its socket is cut.
    const force = setTimeout(() => {
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
    }, CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    for (const session of sessions) session.close();
  });
}
