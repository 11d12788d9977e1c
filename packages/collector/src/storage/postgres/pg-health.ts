// Whether the PostgreSQL database is there. A connection fault on any connection (pool, transaction, COPY,
// migration) starts one check on a new connection: if it connects, the fault was one connection's (a
// terminated backend), which the pool has already replaced; if not, the database is down: one log line says
// so with its cause, every read and write fails at once with STORAGE_UNAVAILABLE (503), and a new connection
// is tried with bounded backoff until one works, then one line says it is back. Started while unreachable,
// the same loop connects (and migrates) when it can.
import { CollectorError } from '../../errors.js';
import { causeOf } from '../../ops/logger.js';

/** What the backend logs with (a pino logger fits). */
export type PgLog = {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
};

export const SILENT_LOG: PgLog = { error() {}, warn() {}, info() {} };

/** SQLSTATEs of a lost or refused connection: class 08, the server shutting down or starting, no slots. */
const CONNECTION_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** node-postgres's own connection failures, which carry no code. */
const DRIVER_FAULT =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Client was closed|Connection ended/i;

const codeOf = (error: unknown): string | undefined => {
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' ? code : undefined;
};

/**
 * A fault of the connection or the server rather than of one statement: a socket error (ECONNRESET,
 * ECONNREFUSED, EPIPE, ETIMEDOUT, …), a connection SQLSTATE (57P01 terminated, 57P03 starting up, 08006, …),
 * or one of node-postgres's own connection failures.
 */
export function isConnectionFault(error: unknown): boolean {
  const code = codeOf(error);
  // Socket errors first: EPIPE has a SQLSTATE's shape, and no SQLSTATE class begins with E.
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return true;
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return CONNECTION_SQLSTATE.test(code);
  return error instanceof Error && DRIVER_FAULT.test(error.message);
}

/** SQLSTATEs of a statement stopped by a bound: statement_timeout, lock_timeout, idle-in-transaction timeout. */
export function isTimeout(error: unknown): boolean {
  const code = codeOf(error);
  return code === '57014' || code === '55P03' || code === '25P03';
}

/** The error reads and writes get while the database is down: 503 with Retry-After. */
export function unavailable(reason: string, cause?: unknown): CollectorError {
  return new CollectorError('STORAGE_UNAVAILABLE', reason, { cause });
}

const said = (error: unknown) => {
  const c = causeOf(error);
  return c.code ? `${c.code}: ${c.message}` : c.message;
};

export type HealthOptions = {
  /** Opens a new connection and does what being up needs (at start: the migrations). Throws when it cannot. */
  probe: () => Promise<void>;
  log: PgLog;
  /** First and longest delay between connection attempts while down (default 100 ms and 2 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** How often a long outage is logged again (default 60 s). */
  remindMs?: number;
};

export class PgHealth {
  readonly #o: Required<HealthOptions>;
  #state: 'up' | 'checking' | 'down' = 'up';
  #reason = '';
  #downAt = 0;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;

  constructor(options: HealthOptions) {
    this.#o = { minDelayMs: 100, maxDelayMs: 2000, remindMs: 60_000, ...options };
  }

  /** Why the database cannot be used now, or undefined when it can. */
  get downReason(): string | undefined {
    return this.#state === 'down' ? this.#reason : undefined;
  }

  /** Throws STORAGE_UNAVAILABLE while the database is down, so requests are answered at once. */
  check(): void {
    if (this.#state === 'down') throw unavailable(this.#reason);
  }

  /**
   * What a failed statement becomes: a connection fault starts a check and becomes STORAGE_UNAVAILABLE;
   * anything else is returned as it is.
   */
  translate(error: unknown): unknown {
    if (!isConnectionFault(error)) return error;
    this.fault(error);
    return unavailable(`database connection failed (${said(error)})`, error);
  }

  /** A connection failed somewhere: checks once, on a new connection, whether the database is still there. */
  fault(error: unknown): void {
    if (this.#state !== 'up' || this.#closed) return;
    this.#state = 'checking';
    this.#probeAfterFault().then(
      () => {
        if (this.#closed) return;
        this.#state = 'up';
        this.#o.log.warn(
          { cause: causeOf(error) },
          'a database connection failed and was replaced; the database answers',
        );
      },
      (probeError: unknown) => {
        if (this.#closed) return;
        this.#down(probeError, error);
        this.#o.log.error(
          { cause: causeOf(probeError), lost: causeOf(error), retryMs: this.#retryRange() },
          'database unreachable; ingest and reads answer 503 until it is back',
        );
      },
    );
  }

  /**
   * The check after a fault. An administrator's termination (57P01) of the check's own connection says nothing
   * of the database: a test or an operator ending every backend of the collector can end the check's too, which
   * was then taken for an outage. A server shutting down refuses the next connection (57P03 or a refused
   * socket), so one more attempt tells the two apart.
   */
  async #probeAfterFault(): Promise<void> {
    try {
      await this.#o.probe();
    } catch (error) {
      if (codeOf(error) !== '57P01' || this.#closed) throw error;
      await this.#o.probe();
    }
  }

  /** Started while the database cannot be reached: down from the start, connecting in the background. */
  startDown(error: unknown): void {
    this.#down(error, undefined);
    this.#o.log.error(
      { cause: causeOf(error), retryMs: this.#retryRange() },
      'cannot reach or migrate the database at start; serving 503 and /readyz not ready, retrying with backoff',
    );
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#wake?.();
  }

  #retryRange() {
    return { from: this.#o.minDelayMs, to: this.#o.maxDelayMs };
  }

  #down(error: unknown, lost: unknown): void {
    this.#state = 'down';
    this.#reason = `database unreachable (${said(error)})`;
    this.#downAt = Date.now();
    void this.#reconnect(lost === undefined);
  }

  async #reconnect(atStart: boolean): Promise<void> {
    let delay = this.#o.minDelayMs;
    let attempts = 0;
    let remindAt = this.#downAt + this.#o.remindMs;
    while (!this.#closed) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = setTimeout(resolve, delay);
        // The backoff never keeps a process alive that has nothing else to do.
        this.#timer.unref();
      });
      if (this.#closed) return;
      attempts++;
      try {
        await this.#o.probe();
      } catch (error) {
        this.#reason = `database unreachable (${said(error)})`;
        delay = Math.min(delay * 2, this.#o.maxDelayMs);
        if (Date.now() >= remindAt) {
          remindAt = Date.now() + this.#o.remindMs;
          this.#o.log.warn(
            { cause: causeOf(error), downMs: Date.now() - this.#downAt, attempts },
            'database still unreachable; retrying',
          );
        }
        continue;
      }
      if (this.#closed) return;
      this.#state = 'up';
      this.#reason = '';
      this.#o.log.info(
        { downMs: Date.now() - this.#downAt, attempts },
        atStart
          ? 'database reachable; connected and migrated, ingest and reads resume'
          : 'database reachable again; ingest and reads resume',
      );
      return;
    }
  }
}
