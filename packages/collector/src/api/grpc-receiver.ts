// OTLP/gRPC: opentelemetry.proto.collector.trace.v1.TraceService/Export on its own port (--grpc-port), with the
// HTTP receiver's rules: the same token (as `authorization: Bearer` metadata), body cap and in-flight budget,
// queue and acknowledgement after commit, and the status codes the OTLP specification gives for gRPC.
// Messages stay raw bytes through grpc-js (it handles gzip): the HTTP receiver's protobuf decoder reads them.
import * as grpc from '@grpc/grpc-js';
import type { BodyBudget } from '../ingest/body-budget.js';
import { type IntakeOptions, takeInDecoded } from '../ingest/intake.js';
import { decodeProtobuf } from '../otlp/decode-proto.js';
import { exportResponse, retryStatus } from '../otlp/responses.js';
import type { TokenCheck } from './auth.js';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

const raw = (b: Buffer) => b;
/** The service with messages left as raw bytes; clients (tests) use the same definition. */
export const TRACE_SERVICE: grpc.ServiceDefinition = {
  Export: {
    path: TRACE_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};

export type GrpcReceiverOptions = IntakeOptions & {
  host: string;
  port: number;
  maxBodyBytes: number;
  budget: BodyBudget;
  retryAfterSeconds: number;
  token: TokenCheck | undefined;
};

export type GrpcReceiver = { port: number; close(): Promise<void> };

type Reply = grpc.sendUnaryData<Buffer>;

function refuse(callback: Reply, code: grpc.status, details: string, retrySeconds?: number): void {
  const metadata = new grpc.Metadata();
  if (retrySeconds !== undefined)
    metadata.set('grpc-status-details-bin', retryStatus(code, details, retrySeconds));
  callback({ code, details, metadata });
}

/** A failed bind as the HTTP listener's error looks: the system's code (EADDRINUSE, EACCES), host and port. */
function bindError(error: Error, host: string, port: number): Error {
  const code = /\b(E[A-Z]+)\b/.exec(error.message)?.[1] ?? 'EBIND';
  return Object.assign(new Error(`cannot listen for OTLP/gRPC on ${host}:${port} (${code})`), {
    code,
    address: host,
    port,
    syscall: 'listen',
  });
}

/** grpc-js's own verbosity: GRPC_VERBOSITY (or GRPC_NODE_VERBOSITY), else errors only. */
function defaultVerbosity(): grpc.logVerbosity {
  const named = (process.env.GRPC_NODE_VERBOSITY ?? process.env.GRPC_VERBOSITY ?? '').toUpperCase();
  const levels: Record<string, grpc.logVerbosity> = {
    DEBUG: grpc.logVerbosity.DEBUG,
    INFO: grpc.logVerbosity.INFO,
    NONE: grpc.logVerbosity.NONE,
  };
  return levels[named] ?? grpc.logVerbosity.ERROR;
}

export async function startGrpcReceiver(o: GrpcReceiverOptions): Promise<GrpcReceiver> {
  const server = new grpc.Server({
    // grpc-js refuses larger messages itself (RESOURCE_EXHAUSTED), after inflating a compressed one.
    'grpc.max_receive_message_length': o.maxBodyBytes,
  });
  const exportTraces: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    if (o.token) {
      const auth = call.metadata.get('authorization')[0];
      if (!o.token(typeof auth === 'string' ? auth : undefined)) {
        refuse(callback, grpc.status.UNAUTHENTICATED, 'missing or wrong bearer token');
        return;
      }
    }
    const body = call.request;
    const key = {};
    if (!o.budget.take(key, body.length)) {
      refuse(
        callback,
        grpc.status.RESOURCE_EXHAUSTED,
        'too many request bytes in flight',
        o.retryAfterSeconds,
      );
      return;
    }
    void handle(body)
      .then((reply) => reply(callback))
      .finally(() => o.budget.release(key));
  };

  async function handle(body: Buffer): Promise<(callback: Reply) => void> {
    // Waits holding only what the answer needs, not the decoded batch (intake.ts).
    const taken = takeInDecoded(
      decodeProtobuf(body),
      { protocol: 'grpc', encoding: 'protobuf' },
      o,
    );
    if (!taken.ok) {
      const { message } = taken;
      return (cb) => refuse(cb, grpc.status.INVALID_ARGUMENT, message);
    }
    const { rejected, errors } = taken;
    const outcome = await taken.outcome;
    if (outcome.ok)
      return (cb) => cb(null, exportResponse('protobuf', rejected, errors.join('; ')) as Buffer);
    // OTLP/gRPC: RESOURCE_EXHAUSTED is retried only with RetryInfo; UNAVAILABLE always is.
    if (outcome.reason === 'full')
      return (cb) =>
        refuse(cb, grpc.status.RESOURCE_EXHAUSTED, 'write queue is full', o.retryAfterSeconds);
    const message =
      outcome.reason === 'closed'
        ? 'collector is shutting down'
        : 'storage cannot accept writes right now';
    return (cb) => refuse(cb, grpc.status.UNAVAILABLE, message, o.retryAfterSeconds);
  }

  server.addService(TRACE_SERVICE, { Export: exportTraces });
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  // grpc-js prints its own line for a failed bind ("E No address added …"); the error says it once, clearly.
  grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${host}:${o.port}`,
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(bindError(error, o.host, o.port)) : resolve(bound)),
    ),
  ).finally(() => grpc.setLogVerbosity(defaultVerbosity()));
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // Calls in flight get their answer; a shutdown that hangs on a dead client is forced. A connection that
        // never began HTTP/2 keeps tryShutdown from calling back even after the force (test/shutdown.test.ts),
        // so the force ends the wait itself: the port is closed, and the process exits after close.
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
