// One attempt of an executor: bounded by the per-attempt timeout and the caller's signal, with the outcome
// as a value (ok, rejected or thrown), so a hung or throwing executor never escapes the call.
import type { Rejection, ToolContext } from './types.js';

export type AttemptOutcome =
  | { kind: 'ok'; value: unknown }
  | { kind: 'rejected'; reason: string; message: string }
  | { kind: 'error'; error: unknown };

export type AttemptState = { partialEffect: boolean; rejection: Rejection | undefined };

const rejections = new WeakSet<object>();
const NEVER_ABORTED = new AbortController().signal;

/** Creates the `ctx.reject` value and remembers it was created here, so a look-alike object is not one. */
export function makeRejection(state: AttemptState, reason: string, message: string): Rejection {
  const rejection = { reason: String(reason), message: String(message) } as unknown as Rejection;
  rejections.add(rejection);
  state.rejection = rejection;
  return rejection;
}

function isRejection(value: unknown): value is Rejection {
  return typeof value === 'object' && value !== null && rejections.has(value);
}

type Execute = (input: unknown, ctx: ToolContext) => unknown;

/** Per-attempt identity of the call, as the executor sees it in `ctx`. */
export type AttemptInit = {
  attempt: number;
  idempotencyKey: string | undefined;
  callId: string | undefined;
  conversationId: string | undefined;
};

/** The executor's `ctx`: a class, because one is made per attempt on the hot path. */
class AttemptContext implements ToolContext {
  readonly attempt: number;
  readonly signal: AbortSignal;
  readonly idempotencyKey: string | undefined;
  readonly callId: string | undefined;
  readonly conversationId: string | undefined;
  readonly #state: AttemptState;

  constructor(init: AttemptInit, signal: AbortSignal, state: AttemptState) {
    this.attempt = init.attempt;
    this.signal = signal;
    this.idempotencyKey = init.idempotencyKey;
    this.callId = init.callId;
    this.conversationId = init.conversationId;
    this.#state = state;
  }

  markPartialEffect(): void {
    this.#state.partialEffect = true;
  }

  reject(reason: string, message: string): Rejection {
    return makeRejection(this.#state, reason, message);
  }
}

/** Runs one attempt of `execute`; sync when the executor is. */
export function runAttempt(
  execute: Execute,
  input: unknown,
  init: AttemptInit,
  state: AttemptState,
  timeoutMs: number | undefined,
  callerSignal: AbortSignal | undefined,
  executorSignal?: AbortSignal,
): AttemptOutcome | Promise<AttemptOutcome> {
  // Nothing can cut this attempt short: skip the controller, timer and race (the common, fast path).
  if (timeoutMs === undefined && callerSignal === undefined) {
    const signal = executorSignal ?? NEVER_ABORTED;
    return settle(execute, input, new AttemptContext(init, signal, state), state);
  }
  // Only the caller can abort: hand its signal through instead of chaining a new controller to it.
  if (timeoutMs === undefined && callerSignal !== undefined) {
    return raceSignal(
      execute,
      input,
      new AttemptContext(init, callerSignal, state),
      state,
      callerSignal,
    );
  }
  return runGuarded(execute, input, init, state, timeoutMs, callerSignal ?? executorSignal);
}

async function raceSignal(
  execute: Execute,
  input: unknown,
  ctx: ToolContext,
  state: AttemptState,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  if (signal.aborted) return { kind: 'error', error: signal.reason };
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<AttemptOutcome>((resolve) => {
    onAbort = () => resolve({ kind: 'error', error: signal.reason });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([settle(execute, input, ctx, state), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

async function runGuarded(
  execute: Execute,
  input: unknown,
  init: AttemptInit,
  state: AttemptState,
  timeoutMs: number | undefined,
  callerSignal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () =>
            controller.abort(
              new DOMException(`Attempt timed out after ${timeoutMs} ms`, 'TimeoutError'),
            ),
          timeoutMs,
        );
  const aborted = new Promise<AttemptOutcome>((resolve) => {
    const onAbort = () => resolve({ kind: 'error', error: controller.signal.reason });
    if (controller.signal.aborted) onAbort();
    else controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    // An executor that ignores its signal keeps running in the background; its late result is dropped.
    const ctx = new AttemptContext(init, controller.signal, state);
    return await Promise.race([settle(execute, input, ctx, state), aborted]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }
}

function settle(
  execute: Execute,
  input: unknown,
  ctx: ToolContext,
  state: AttemptState,
): AttemptOutcome | Promise<AttemptOutcome> {
  let value: unknown;
  let thenable: boolean;
  try {
    value = execute(input, ctx);
    thenable = isThenable(value);
  } catch (error) {
    return { kind: 'error', error };
  }
  if (thenable) {
    return Promise.resolve(value as PromiseLike<unknown>).then(
      (resolved) => outcomeOf(resolved, state),
      (error: unknown) => ({ kind: 'error', error }),
    );
  }
  return outcomeOf(value, state);
}

function outcomeOf(value: unknown, state: AttemptState): AttemptOutcome {
  if (isRejection(value)) return { kind: 'rejected', reason: value.reason, message: value.message };
  // `ctx.reject(...)` without `return` still rejects: the author's intent is unambiguous.
  if (state.rejection) {
    return { kind: 'rejected', reason: state.rejection.reason, message: state.rejection.message };
  }
  return { kind: 'ok', value };
}

function isThenable(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof Reflect.get(value, 'then') === 'function'
  );
}
