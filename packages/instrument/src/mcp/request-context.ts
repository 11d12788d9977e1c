// What a request handler is told about its request, read once per call from either SDK major: v1 hands handlers
// an `extra` (`requestId`, `_meta`, `sessionId`, `requestInfo.headers`, `signal`), v2 a context (`mcpReq.id`,
// `mcpReq._meta`, `mcpReq.envelope`, `mcpReq.signal`, `sessionId`, `http.req`). In the 2026-07-28 revision the
// client and the protocol version travel with every request, in the `_meta` envelope SDK v2 lifts out of `_meta`.
import * as sc from '../semconv.js';
import { clientInfoOf, isRecord } from './sdk-access.js';

export type DecodedExtra = {
  requestId: string | undefined;
  sessionId: string | undefined;
  /** The request's `_meta` as the handler sees it: trace context and Toolscope's keys. */
  meta: Record<string, unknown> | undefined;
  /** The HTTP request's headers by lower-case name, when it came over HTTP. */
  headers: Record<string, unknown> | undefined;
  signal: AbortSignal | undefined;
  /** The 2026-07-28 `_meta` envelope of the request (client info, protocol version), when it carried one. */
  envelope: Record<string, unknown> | undefined;
  /**
   * The `requestState` a later leg of a multi round-trip call echoes (empty for a leg that only answers input);
   * SDK v2 lifts it and `inputResponses` out of `params` into `mcpReq`. Undefined for a first leg.
   */
  echoedState: string | undefined;
};

function requestIdOf(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** The handler `extra` (SDK v1) or context (SDK v2) of a request, decoded field by field. */
export function decodeExtra(extra: unknown): DecodedExtra {
  // The SDK passes a plain object: read it directly (this runs on every call), checking each field's type.
  const e = isRecord(extra) ? extra : {};
  const req = e.mcpReq;
  if (req !== undefined) return decodeContext(e, req);
  const sessionId = e.sessionId;
  const meta = e._meta;
  const info = e.requestInfo;
  const headers = isRecord(info) ? info.headers : undefined;
  const signal = e.signal;
  return {
    requestId: requestIdOf(e.requestId),
    sessionId: typeof sessionId === 'string' ? sessionId : undefined,
    meta: isRecord(meta) ? meta : undefined,
    headers: isRecord(headers) ? headers : undefined,
    signal: signal instanceof AbortSignal ? signal : undefined,
    envelope: undefined,
    echoedState: undefined,
  };
}

/** SDK v2's handler context: the request under `mcpReq`, the HTTP request (a web `Request`) under `http.req`. */
function decodeContext(ctx: Record<string, unknown>, req: unknown): DecodedExtra {
  const r = isRecord(req) ? req : {};
  const sessionId = ctx.sessionId;
  const meta = r._meta;
  const envelope = r.envelope;
  const signal = r.signal;
  const http = ctx.http;
  const headers = isRecord(http) && isRecord(http.req) ? http.req.headers : undefined;
  return {
    requestId: requestIdOf(r.id),
    sessionId: typeof sessionId === 'string' ? sessionId : undefined,
    meta: isRecord(meta) ? meta : undefined,
    headers: isHeaders(headers) ? headerRecord(headers) : undefined,
    signal: signal instanceof AbortSignal ? signal : undefined,
    envelope: isRecord(envelope) ? envelope : undefined,
    echoedState: echoedStateOfContext(r),
  };
}

/** The `requestState` accessor's value (the SDK's shared accessor answers undefined for a first leg). */
function echoedStateOfContext(req: Record<string, unknown>): string | undefined {
  const accessor = req.requestState;
  const state: unknown = typeof accessor === 'function' ? accessor() : undefined;
  if (typeof state === 'string') return state;
  return req.inputResponses !== undefined ? '' : undefined;
}

function isHeaders(value: unknown): value is Headers {
  return isRecord(value) && typeof value.forEach === 'function' && typeof value.get === 'function';
}

function headerRecord(headers: Headers): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Headers iterate with lower-case names, as Node's IncomingMessage keys them (SDK v1's requestInfo.headers).
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * The client's info (`name`, `version`) for this request: the 2026-07-28 envelope's, else what the client said
 * in `initialize` (the server's `getClientVersion()`).
 */
export function requestClientInfo(low: object, e: DecodedExtra): unknown {
  const fromEnvelope = e.envelope?.[sc.MCP_META_CLIENT_INFO];
  return fromEnvelope !== undefined ? fromEnvelope : clientInfoOf(low);
}

/**
 * The protocol version of this request: the 2026-07-28 envelope's, else the HTTP `MCP-Protocol-Version` header
 * (sent on every request after initialization), else the version `initialize` negotiated.
 */
export function requestProtocolVersion(
  e: DecodedExtra,
  negotiated: string | undefined,
): string | undefined {
  const fromEnvelope = e.envelope?.[sc.MCP_META_PROTOCOL_VERSION];
  if (typeof fromEnvelope === 'string' && fromEnvelope !== '') return fromEnvelope;
  const header = e.headers?.['mcp-protocol-version'];
  return typeof header === 'string' ? header : negotiated;
}
