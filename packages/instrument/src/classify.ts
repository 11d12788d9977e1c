// Classification of errors thrown by an executor: transient failures are RETRYABLE, everything else FAILED,
// unless the tool's own `classify` says otherwise. Decided in code, never by the model.
import { z } from 'zod';

export const classificationSchema = z.object({
  code: z.enum(['RETRYABLE', 'REJECTED', 'FAILED']),
  reason: z.string().min(1).max(100).optional(),
  retryAfterMs: z.number().min(0).optional(),
  partialEffect: z.boolean().optional(),
});
export type Classification = z.infer<typeof classificationSchema>;

/** What a tool's `classify` may return: a code, a full classification, or nothing to use the default. */
export const classifyReturnSchema = z.union([
  classificationSchema.shape.code,
  classificationSchema,
  z.undefined(),
  z.null(),
]);
export type ClassifyReturn = z.input<typeof classifyReturnSchema>;

const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** The default classification of a thrown value. */
export function defaultClassify(error: unknown): Classification {
  const name = readString(error, 'name');
  const code = readString(error, 'code');
  const status = readStatus(error);
  const message = readString(error, 'message') ?? '';
  const retryAfterMs = readRetryAfterMs(error);
  const withRetryAfter = (c: Classification): Classification =>
    retryAfterMs === undefined ? c : { ...c, retryAfterMs };

  if (
    name === 'TimeoutError' ||
    (code !== undefined && TIMEOUT_CODES.has(code)) ||
    status === 408
  ) {
    return withRetryAfter({ code: 'RETRYABLE', reason: 'timeout' });
  }
  if (name === 'AbortError') return { code: 'RETRYABLE', reason: 'aborted' };
  if (status === 429 || /rate.?limit|too many requests/i.test(message)) {
    return withRetryAfter({ code: 'RETRYABLE', reason: 'rate_limited' });
  }
  if (status === 502 || status === 503 || status === 504) {
    return withRetryAfter({ code: 'RETRYABLE', reason: 'unavailable' });
  }
  if (code !== undefined && TRANSIENT_NETWORK_CODES.has(code)) {
    return { code: 'RETRYABLE', reason: 'unavailable' };
  }
  if (/timed? ?out\b|timeout/i.test(message))
    return withRetryAfter({ code: 'RETRYABLE', reason: 'timeout' });
  return { code: 'FAILED' };
}

/** Runs a tool's own classifier and validates what it returned; any problem falls back to the default. */
export function classifyWith(
  classify: ((error: unknown) => unknown) | undefined,
  error: unknown,
): Classification {
  if (!classify) return defaultClassify(error);
  let returned: unknown;
  try {
    returned = classify(error);
  } catch {
    return defaultClassify(error);
  }
  const parsed = classifyReturnSchema.safeParse(returned);
  if (!parsed.success || parsed.data === undefined || parsed.data === null)
    return defaultClassify(error);
  return typeof parsed.data === 'string' ? { code: parsed.data } : parsed.data;
}

function readField(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return Reflect.get(value, key);
  } catch {
    return undefined;
  }
}

function readString(value: unknown, key: string): string | undefined {
  const field = readField(value, key);
  return typeof field === 'string' ? field : undefined;
}

function readStatus(error: unknown): number | undefined {
  for (const candidate of [
    readField(error, 'status'),
    readField(error, 'statusCode'),
    readField(readField(error, 'response'), 'status'),
  ]) {
    if (typeof candidate === 'number') return candidate;
  }
  return undefined;
}

function readHeader(headers: unknown, name: string): unknown {
  const get = readField(headers, 'get');
  if (typeof get === 'function') {
    try {
      return get.call(headers, name);
    } catch {
      return undefined;
    }
  }
  return readField(headers, name);
}

/** `retryAfterMs`, `retryAfter` (seconds) or a `Retry-After` header on the error or its response. */
function readRetryAfterMs(error: unknown): number | undefined {
  const direct = readField(error, 'retryAfterMs');
  if (typeof direct === 'number' && direct >= 0) return direct;
  const seconds = readField(error, 'retryAfter');
  if (typeof seconds === 'number' && seconds >= 0) return seconds * 1000;
  const header =
    readHeader(readField(error, 'headers'), 'retry-after') ??
    readHeader(readField(readField(error, 'response'), 'headers'), 'retry-after');
  if (typeof header !== 'string') return undefined;
  const asSeconds = Number(header);
  if (Number.isFinite(asSeconds) && asSeconds >= 0) return asSeconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
