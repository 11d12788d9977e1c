// Error codes of the collector, with the HTTP status and OTLP (google.rpc) code of each, in one table (as fastify
// documents its errors): every error answer of the HTTP routes and the OTLP receiver takes its status from here,
// and docs/collector.md lists the table.

/** google.rpc codes an OTLP/HTTP failure body carries (its `code`); the gRPC receiver answers the same ones. */
export const RPC_CODE = {
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

type Entry = { status: number; rpc: (typeof RPC_CODE)[keyof typeof RPC_CODE]; message: string };

export const COLLECTOR_ERRORS = {
  INVALID_PARAMETER: {
    status: 400,
    rpc: RPC_CODE.INVALID_ARGUMENT,
    message: 'A query parameter is invalid',
  },
  INVALID_OTLP: {
    status: 400,
    rpc: RPC_CODE.INVALID_ARGUMENT,
    message: 'The OTLP payload could not be decoded',
  },
  UNAUTHORIZED: {
    status: 401,
    rpc: RPC_CODE.UNAUTHENTICATED,
    message: 'A valid token is required',
  },
  NOT_FOUND: { status: 404, rpc: RPC_CODE.INVALID_ARGUMENT, message: 'Not found' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    rpc: RPC_CODE.INVALID_ARGUMENT,
    message: 'Method not allowed',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    rpc: RPC_CODE.RESOURCE_EXHAUSTED,
    message: 'The request body is larger than the limit',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    rpc: RPC_CODE.INVALID_ARGUMENT,
    message: 'Unsupported content type or encoding',
  },
  QUEUE_FULL: {
    status: 429,
    rpc: RPC_CODE.RESOURCE_EXHAUSTED,
    message: 'The write queue is full; retry after the indicated delay',
  },
  BODIES_IN_FLIGHT: {
    status: 429,
    rpc: RPC_CODE.RESOURCE_EXHAUSTED,
    message: 'Too many request bytes in flight; retry after the indicated delay',
  },
  MEMORY_LIMIT: {
    status: 429,
    rpc: RPC_CODE.RESOURCE_EXHAUSTED,
    message: 'The collector is over its memory limit; retry after the indicated delay',
  },
  STORAGE_UNAVAILABLE: {
    status: 503,
    rpc: RPC_CODE.UNAVAILABLE,
    message: 'Storage cannot accept writes right now',
  },
  SHUTTING_DOWN: {
    status: 503,
    rpc: RPC_CODE.UNAVAILABLE,
    message: 'The collector is shutting down',
  },
  DASHBOARD_NOT_BUILT: {
    status: 503,
    rpc: RPC_CODE.UNAVAILABLE,
    message: 'The dashboard is not built',
  },
  INTERNAL: { status: 500, rpc: RPC_CODE.INTERNAL, message: 'Internal error' },
} as const satisfies Record<string, Entry>;

export type CollectorErrorCode = keyof typeof COLLECTOR_ERRORS;

/** The one error class the collector throws internally; its code decides the HTTP status. */
export class CollectorError extends Error {
  override readonly name = 'CollectorError';
  readonly code: CollectorErrorCode;

  constructor(code: CollectorErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message ?? COLLECTOR_ERRORS[code].message, options);
    this.code = code;
  }

  get status(): number {
    return COLLECTOR_ERRORS[this.code].status;
  }

  /** The same status under the name fastify's error handler reads. */
  get statusCode(): number {
    return this.status;
  }
}

/** The code of an HTTP status the table knows (for answers made by fastify itself), else INTERNAL. */
export function codeOfStatus(status: number): CollectorErrorCode {
  for (const [code, e] of Object.entries(COLLECTOR_ERRORS) as [CollectorErrorCode, Entry][])
    if (e.status === status) return code;
  return status < 500 ? 'INVALID_PARAMETER' : 'INTERNAL';
}
