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

/** Calls `report` once per distinct message (the last 1,000 remembered): a damaged row read on every request
 * is logged once, not on every request. */
export function onceEach(report: (what: string) => void): (what: string) => void {
  const seen = new Set<string>();
  return (what) => {
    if (seen.has(what)) return;
    if (seen.size >= 1000) seen.clear();
    seen.add(what);
    report(what);
  };
}

/** A URL's password as `***` wherever one appears in a message (`postgres://user:secret@host` and the like). */
export function hidePasswords(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}

/**
 * The error's code (SQLITE_FULL, ECONNREFUSED, 57P01, …) and message, for a log line. An AggregateError (a
 * host name with several addresses, each refused) has no message of its own: its first error's is used.
 */
export function causeOf(error: unknown): { code?: string; message: string } {
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : undefined;
  let message = error instanceof Error ? error.message : String(error);
  if (!message && error instanceof AggregateError && error.errors[0] instanceof Error)
    message = error.errors[0].message;
  return { ...(code ? { code } : {}), message: hidePasswords(message) };
}
