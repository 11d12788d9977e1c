// The collector's log: pino JSON lines on stdout (`toolscope serve --log-level`, default info), the same logger
// fastify uses. Authorization headers are redacted should a request ever be logged; payloads never are.
import { pino } from 'pino';
import { z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logLevelSchema = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof logLevelSchema>;

export function createLogger(level: LogLevel): pino.Logger {
  return pino({
    level,
    base: { service: 'toolscope-collector' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '***' },
  });
}

/** The error's code (SQLITE_FULL, ECONNREFUSED, 40P01, …) and message, for a log line. */
export function causeOf(error: unknown): { code?: string; message: string } {
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : undefined;
  return {
    ...(code ? { code } : {}),
    message: error instanceof Error ? error.message : String(error),
  };
}
