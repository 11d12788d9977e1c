// gRPC over HTTP/2 as the OTLP/gRPC receiver speaks it (the gRPC PROTOCOL-HTTP2 specification): answers with
// a status, or with a message and then a status, and the one length-prefixed request message of a unary call
// read only once its declared length fits the limits.
import { constants, type ServerHttp2Stream } from 'node:http2';
import { BUSY_MESSAGE } from '../ingest/bounded-inflate.js';

/** gRPC status codes the receiver answers with. */
export const GRPC_STATUS = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatus = (typeof GRPC_STATUS)[keyof typeof GRPC_STATUS];

/** Message encodings the receiver inflates (grpc-encoding). */
export const ACCEPTED_ENCODINGS = 'identity,deflate,gzip';

const answerable = (stream: ServerHttp2Stream) =>
  !stream.destroyed && !stream.closed && !stream.headersSent;

/** grpc-message: percent-encoded outside printable ASCII (and `%` itself). */
function percentEncode(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), (b) =>
    b >= 0x20 && b <= 0x7e && b !== 0x25
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/**
 * Ends the call with a status and no message (a trailers-only answer). `details` is a google.rpc.Status
 * (grpc-status-details-bin), e.g. with the RetryInfo that tells exporters when to retry. The rest of an unread
 * request is not wanted: the stream is reset with NO_ERROR once the answer is out, as HTTP/2 allows (8.1).
 */
export function answerStatus(
  stream: ServerHttp2Stream,
  code: GrpcStatus,
  message: string,
  details?: Buffer,
): void {
  if (!answerable(stream)) return;
  stream.respond(
    {
      [constants.HTTP2_HEADER_STATUS]: 200,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      'grpc-accept-encoding': ACCEPTED_ENCODINGS,
      'grpc-status': String(code),
      'grpc-message': percentEncode(message),
      ...(details ? { 'grpc-status-details-bin': details.toString('base64') } : {}),
    },
    { endStream: true },
  );
  stream.close(constants.NGHTTP2_NO_ERROR);
}

/** Ends the call with `message` (uncompressed) and status OK. */
export function answerMessage(stream: ServerHttp2Stream, message: Buffer): void {
  if (!answerable(stream)) return;
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  stream.respond(
    {
      [constants.HTTP2_HEADER_STATUS]: 200,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      'grpc-accept-encoding': ACCEPTED_ENCODINGS,
    },
    { waitForTrailers: true },
  );
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(GRPC_STATUS.OK) }));
  stream.end(frame);
}

export type ReadMessage =
  | { ok: true; compressed: boolean; body: Buffer }
  | { ok: false; code: GrpcStatus; message: string; retry: boolean };

export type ReadLimits = {
  maxBytes: number;
  /** Takes `bytes` of the in-flight budget for the call, before they are read; false when they do not fit. */
  take: (bytes: number) => boolean;
};

/**
 * Reads the call's one message. Nothing past the 5-byte prefix is kept before the declared length is checked
 * against the limit and taken from the budget; the message is then copied into one buffer of that length.
 */
export function readMessage(stream: ServerHttp2Stream, limits: ReadLimits): Promise<ReadMessage> {
  return new Promise((resolve) => {
    const prefix = Buffer.alloc(5);
    let prefixFilled = 0;
    let body: Buffer | undefined;
    let filled = 0;
    let settled = false;
    const settle = (result: ReadMessage) => {
      if (settled) return;
      settled = true;
      // Without a listener the rest of the stream (if any) flows into nothing until it is reset.
      stream.off('data', onData);
      // A listener left on the stream would keep this scope, and through `resolve` the settled promise and the
      // message, until the stream closes: after the call is answered, once its spans are committed
      // (docs/decisions/0073-bodies-let-go-before-the-commit.md).
      stream.off('end', onEnd);
      stream.off('close', onClose);
      resolve(result);
    };
    const fail = (code: GrpcStatus, message: string, retry = false) =>
      settle({ ok: false, code, message, retry });
    const onData = (chunk: Buffer) => {
      let at = 0;
      if (!body) {
        at = Math.min(5 - prefixFilled, chunk.length);
        chunk.copy(prefix, prefixFilled, 0, at);
        prefixFilled += at;
        if (prefixFilled < 5) return;
        const length = prefix.readUInt32BE(1);
        if (prefix.readUInt8(0) > 1) return fail(GRPC_STATUS.INTERNAL, 'invalid message flag');
        if (length > limits.maxBytes)
          return fail(
            GRPC_STATUS.RESOURCE_EXHAUSTED,
            `request message of ${length} bytes is larger than the limit of ${limits.maxBytes}`,
          );
        if (!limits.take(length)) return fail(GRPC_STATUS.RESOURCE_EXHAUSTED, BUSY_MESSAGE, true);
        body = Buffer.allocUnsafe(length);
      }
      if (filled + chunk.length - at > body.length)
        return fail(GRPC_STATUS.INVALID_ARGUMENT, 'a unary call carries one request message');
      filled += chunk.copy(body, filled, at);
    };
    const onEnd = () => {
      if (!body) fail(GRPC_STATUS.INVALID_ARGUMENT, 'no request message');
      else if (filled < body.length)
        fail(GRPC_STATUS.INVALID_ARGUMENT, 'request message cut short');
      else settle({ ok: true, compressed: prefix.readUInt8(0) === 1, body });
    };
    // A client that cancels resets the stream: nobody is left to answer.
    const onClose = () => fail(GRPC_STATUS.UNAVAILABLE, 'call cancelled');
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onClose);
  });
}
