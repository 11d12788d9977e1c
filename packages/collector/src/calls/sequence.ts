// A tool call as one step of an agent's sequence, and a model call between steps: the fields loop detection
// reads, the same whether the writer read them back from storage or took them from the batch in hand.
import type { TracedCall } from './call-columns.js';
import { callCode } from './code.js';
import { firstIssuePath } from './issues.js';
import type { MergedCall } from './logical-join.js';
import type { StoredCall } from './pairing.js';

/** A counted tool call of a scope (a server row, or a client row with no server row), in start order. */
export type SequenceCall = {
  traceId: string;
  spanId: string;
  tool: string;
  inputHash: string | null;
  inputShape: string | null;
  outputHash: string | null;
  startNs: bigint;
  endNs: bigint;
  /** The code rule's value; null on success. */
  code: string | null;
  retryable: boolean | null;
  partialEffect: boolean;
  effect: string | null;
  idempotencyKeyHash: string | null;
  firstIssuePath: string | null;
  resultTokens: number | null;
  /** A task's `tasks/get` polls and the server's poll interval (calls/logical-call.ts), when the call became one. */
  taskPolls: number | null;
  pollIntervalMs: number | null;
};

/** A model call of a scope: when it ran, and its input plus output tokens. */
export type SequenceModelCall = { startNs: bigint; endNs: bigint; tokens: number };

/** A new call of a batch as a step of its scopes' sequences. */
export function sequenceCallOf(c: TracedCall): SequenceCall {
  return {
    traceId: c.traceId,
    spanId: c.spanId,
    tool: c.tool,
    inputHash: c.inputHash,
    inputShape: c.inputShape,
    outputHash: c.outputHash,
    startNs: c.startNs,
    endNs: c.startNs + BigInt(Math.round(c.durationMs * 1e6)),
    code: callCode(c.code, c.errorType, c.isError),
    retryable: c.retryable === null ? null : c.retryable === 1,
    partialEffect: c.partialEffect === 1,
    effect: c.effect,
    idempotencyKeyHash: c.idempotencyKeyHash,
    firstIssuePath: firstIssuePath(c.issues),
    resultTokens: c.resultTokens,
    taskPolls: c.logical?.task?.polls ?? null,
    pollIntervalMs: c.logical?.task?.pollIntervalMs ?? null,
  };
}

/**
 * A stored row whose call later parts extended (calls/logical-join.ts), as a step: what loop detection needs to
 * know that the row's scope must be read again. The fields the stored row does not carry are unknown here; the
 * detection stage reads the row back whole.
 */
export function storedSequenceCall(
  traceId: string,
  s: StoredCall<{ inputHash: string | null }>,
  c: MergedCall,
): SequenceCall {
  const o = c.outcome;
  return {
    traceId,
    spanId: s.spanId,
    tool: s.tool,
    inputHash: s.row.inputHash,
    inputShape: null,
    outputHash: o.outputHash,
    startNs: c.startNs,
    endNs: c.startNs + BigInt(Math.round(c.durationMs * 1e6)),
    code: callCode(o.code, o.errorType, o.isError),
    retryable: o.retryable === null ? null : o.retryable === 1,
    partialEffect: o.partialEffect === 1,
    effect: null,
    idempotencyKeyHash: null,
    firstIssuePath: firstIssuePath(o.issues),
    resultTokens: o.resultTokens,
    taskPolls: c.logical.task?.polls ?? null,
    pollIntervalMs: c.logical.task?.pollIntervalMs ?? null,
  };
}
