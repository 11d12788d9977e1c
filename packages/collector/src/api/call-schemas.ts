// The JSON API's shape of a tool call: an `/api/calls` item, a page of them, and a span's call on the trace and
// conversation pages (schemas.ts re-exports them). Fields may be added, never renamed.
import { z } from 'zod';

export const callIssueSchema = z.object({
  path: z.string(),
  code: z.string(),
  message: z.string(),
});
export type CallIssue = z.infer<typeof callIssueSchema>;

export const callSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  tool: z.string(),
  version: z.string().nullable(),
  schemaHash: z.string().nullable(),
  attempt: z.number().int(),
  code: z.string().nullable(),
  retryable: z.boolean().nullable(),
  /** null when the span did not say (a caller's span, most foreign dialects). */
  partialEffect: z.boolean().nullable(),
  durationMs: z.number(),
  startTime: z.string(),
  issues: z.array(callIssueSchema),
  inputHash: z.string().nullable(),
  inputShape: z.string().nullable(),
  // Additions beyond the issue's list.
  /** Keyed hash of the result as the model read it (`toolscope.output.hash`), when known. */
  outputHash: z.string().nullable(),
  errorType: z.string().nullable(),
  reason: z.string().nullable(),
  effect: z.string().nullable(),
  conversationId: z.string().nullable(),
  callId: z.string().nullable(),
  service: z.string().nullable(),
  kind: z.number().int(),
  parentSpanId: z.string().nullable(),
  /** `client` for the caller's view of the call (a CLIENT span), `server` for the executor's. */
  side: z.enum(['client', 'server']),
  source: z.string().nullable(),
  /** A client row whose server row is known; statistics count the call once, from the server row. */
  paired: z.boolean(),
  /** `toolscope proxy`'s view of the call (a hop between agent and server); paired when the server's row is known. */
  proxy: z.boolean(),
  /** What the call threw: the `exception` event's type and redacted message; null when it did not throw. */
  exceptionType: z.string().nullable(),
  exceptionMessage: z.string().nullable(),
  /** The MCP client's name (its clientInfo), when the span names it. */
  clientName: z.string().nullable(),
  /** The MCP client's version (its clientInfo), when the span names it. */
  clientVersion: z.string().nullable(),
  /** UTF-8 bytes and approximate tokens of the result as the model received it. */
  resultBytes: z.number().int().nullable(),
  resultTokens: z.number().int().nullable(),
  /**
   * One logical call (docs/span-contract.md): its rounds (1, plus one per round of input it asked for), the
   * milliseconds it waited for that input, and, for a call that became a task, its `tasks/get` polls, the
   * server's poll interval and the task's last status. `durationMs` runs from the first request to the final result.
   */
  legs: z.number().int(),
  inputWaitMs: z.number(),
  task: z
    .object({
      polls: z.number().int(),
      pollIntervalMs: z.number().nullable(),
      status: z.string().nullable(),
    })
    .nullable(),
  /** Spans joined into this call: 1 when one span saw it whole; more when processes each saw a part. */
  parts: z.number().int(),
  /**
   * false while what is stored of the call shows no final result: it awaits its next leg, resumes a leg not
   * stored, or is a task whose last status is not terminal.
   */
  complete: z.boolean(),
});
export type Call = z.infer<typeof callSchema>;
export const callsResponseSchema = z.object({
  calls: z.array(callSchema),
  nextCursor: z.string().nullable(),
});
export type CallsResponse = z.infer<typeof callsResponseSchema>;

/** A span's tool call on the trace and conversation pages: an `/api/calls` item and its captured payloads. */
export const spanCallSchema = callSchema.extend({
  /** The arguments and result as stored (redacted JSON) when content capture was on; else null. */
  arguments: z.string().nullable(),
  result: z.string().nullable(),
  /** Answered from the idempotency store instead of running the tool again. */
  replay: z.boolean(),
  /** Attempts inside the call that failed before its outcome (the executor's own retries). */
  failedAttempts: z.array(
    z.object({
      attempt: z.number().int().nullable(),
      code: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ),
  /**
   * A span that is a part of another span's logical call (a leg or a poll that another process served): that
   * span's id, whose `call` is the whole call; null otherwise. Its own `call` is what the part saw.
   */
  joinedTo: z.string().nullable(),
  /** The trace of the span `joinedTo` names: another trace when the call's parts were in separate traces. */
  joinedToTraceId: z.string().nullable(),
});
export type SpanCall = z.infer<typeof spanCallSchema>;
