// Test fixtures for the loop detectors: scopes built from short call specs, so a table row reads as the calls an
// agent made. Shared by the detectors' tests; not a test file itself (vitest runs only *.test.ts).
import type { LoopScope, ScopeCall, ScopeModelCall } from './scope.js';

/** One call as a test writes it: the tool and what matters for the row; the rest has success defaults. */
export type CallSpec = {
  tool: string;
  /** The input hash; null for a call that carried no arguments. */
  input: string | null;
  /** The result hash; omitted or null when unknown. */
  output?: string | null;
  /** The failure's code; omitted or null for a success. */
  code?: string | null;
  /** The input shape; 'shape' unless given. */
  shape?: string | null;
  path?: string | null;
  /** The declared effect ('write', 'read'); unknown unless given. */
  effect?: string | null;
  /** Whether a failure may have applied the effect; false unless given. */
  partialEffect?: boolean;
  /** Whether the executor said to retry; true for RETRYABLE, else unknown (null) unless given. */
  retryable?: boolean | null;
  resultTokens?: number | null;
  /** Start and end in milliseconds; by default call i starts at i × 100 ms and takes 50 ms. */
  startMs?: number;
  endMs?: number;
  traceId?: string;
  /** A task's polls and the server's interval (a logical call that became a task). */
  taskPolls?: number;
  pollIntervalMs?: number;
};

const NS_PER_MS = 1_000_000n;

/** Milliseconds (integral) as nanoseconds. */
export const ms = (n: number): bigint => BigInt(n) * NS_PER_MS;

/** A scope call from a spec; `i` gives its default span id ("s<i>") and times. */
export function call(spec: CallSpec, i: number): ScopeCall {
  const start = spec.startMs ?? i * 100;
  const code = spec.code ?? null;
  return {
    traceId: spec.traceId ?? 't1',
    spanId: `s${i}`,
    tool: spec.tool,
    inputHash: spec.input,
    inputShape: spec.shape === undefined ? 'shape' : spec.shape,
    outputHash: spec.output ?? null,
    startNs: ms(start),
    endNs: ms(spec.endMs ?? start + 50),
    code,
    retryable: spec.retryable !== undefined ? spec.retryable : code === 'RETRYABLE' ? true : null,
    partialEffect: spec.partialEffect ?? false,
    effect: spec.effect ?? null,
    idempotencyKeyHash: null,
    firstIssuePath: spec.path ?? null,
    resultTokens: spec.resultTokens ?? null,
    taskPolls: spec.taskPolls ?? null,
    pollIntervalMs: spec.pollIntervalMs ?? null,
  };
}

/** A model call starting at `startMs` (and taking 50 ms) that read and wrote `tokens`. */
export const modelCall = (startMs: number, tokens: number): ScopeModelCall => ({
  startNs: ms(startMs),
  endNs: ms(startMs + 50),
  tokens,
});

/** A scope of the given calls (in the order given, which the specs' times must follow) and model calls. */
export function scopeOf(
  specs: readonly CallSpec[],
  modelCalls: readonly ScopeModelCall[] = [],
): LoopScope {
  return { calls: specs.map(call), modelCalls };
}

/** A spec of one call, short: `c('read', 'a', { output: 'x' })`. */
export const c = (
  tool: string,
  input: string | null,
  rest: Omit<CallSpec, 'tool' | 'input'> = {},
): CallSpec => ({ tool, input, ...rest });

/** `n` copies of a round of specs, in order (a cycle's rounds, a poll's calls). */
export function rounds(n: number, round: readonly CallSpec[]): CallSpec[] {
  return Array.from({ length: n }, () => round).flat();
}

/** The span ids of the calls at the given indexes, as a flag lists them. */
export const spans = (...indexes: number[]): string[] => indexes.map((i) => `s${i}`);

/** The span ids of calls `from` to `to`, inclusive. */
export const spanRange = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, k) => `s${from + k}`);
