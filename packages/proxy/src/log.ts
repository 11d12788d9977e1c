// The proxy's own log: one JSON line per event on stderr (stdout carries only the server's bytes), with the
// cause of a failure and never a payload; a repeated warning is said once.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type Logger = {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  /** Logs `msg` the first time `key` is seen, and stays quiet about it after. */
  once(key: string, level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
};

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The cause of an error as log fields: its name, code and message, no stack. */
export function causeOf(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { cause: String(error) };
  const code = Reflect.get(error, 'code');
  return { cause: error.message, errorName: error.name, ...(code !== undefined ? { code } : {}) };
}

/** A logger writing JSON lines at `level` and above to `write` (stderr by default). */
export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const said = new Set<string>();
  const log: Logger['log'] = (at, msg, fields) => {
    if (ORDER[at] < ORDER[level]) return;
    write(
      `${JSON.stringify({ time: new Date().toISOString(), level: at, name: 'toolscope-proxy', msg, ...fields })}\n`,
    );
  };
  return {
    log,
    once: (key, at, msg, fields) => {
      if (said.has(key)) return;
      said.add(key);
      log(at, msg, fields);
    },
  };
}
