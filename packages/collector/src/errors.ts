// Error codes of the collector and the HTTP status of each, in one table (as fastify documents its errors).

export const COLLECTOR_ERRORS = {
  INVALID_PARAMETER: { status: 400, message: 'A query parameter is invalid' },
  INVALID_OTLP: { status: 400, message: 'The OTLP payload could not be decoded' },
  UNAUTHORIZED: { status: 401, message: 'A valid token is required' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the limit' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type or encoding' },
  QUEUE_FULL: { status: 429, message: 'The write queue is full; retry after the indicated delay' },
  STORAGE_UNAVAILABLE: { status: 503, message: 'Storage cannot accept writes right now' },
  SHUTTING_DOWN: { status: 503, message: 'The collector is shutting down' },
  INTERNAL: { status: 500, message: 'Internal error' },
} as const;

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
