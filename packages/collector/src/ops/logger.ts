// The collector's log: pino JSON lines on stdout (`toolscope serve --log-level`, default info), the same logger
// fastify uses. Authorization headers are redacted should a request ever be logged; payloads never are.
import { pino } from 'pino';
import { z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logLevelSchema = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof logLevelSchema>;

/** The collector's logger; its lines go to stdout unless `destination` takes them. */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): pino.Logger {
  const options = {
    level,
    base: { service: 'toolscope-collector' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '***' },
  };
  return destination ? pino(options, destination) : pino(options);
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

/** SQLite's code named in a warning's text (`WAL checkpoint failed (retrying): SQLITE_IOERR_WRITE: …`). */
const CODE_IN_TEXT = /\b(SQLITE_[A-Z_]+)\b/;

/**
 * Process warnings (`process.emitWarning`, from this code or a library) as JSON log lines with their code,
 * instead of Node's bare `Warning:` lines on stderr. Returns the undo.
 */
export function logProcessWarnings(log: pino.Logger): () => void {
  const previous = process.listeners('warning');
  process.removeAllListeners('warning');
  const onWarning = (warning: Error) => {
    const message = hidePasswords(warning.message);
    const own = Reflect.get(warning, 'code');
    const code = typeof own === 'string' ? own : CODE_IN_TEXT.exec(message)?.[1];
    log.warn(
      { cause: { ...(code ? { code } : {}), message }, warning: warning.name },
      message.replace(/^toolscope: /, ''),
    );
  };
  process.on('warning', onWarning);
  return () => {
    process.off('warning', onWarning);
    for (const listener of previous) process.on('warning', listener);
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
