// Public configuration types of `defineTool` and `.call` (the shapes of docs/defining-tools.md).
import type { TracerProvider } from '@opentelemetry/api';
import type { z } from 'zod';
import type { ClassifyReturn } from './classify.js';
import type { ToolResult } from './contract.js';
import type { Deprecation } from './deprecation.js';
import type { IdempotencyStore } from './idempotency.js';
import type { CaptureOptions } from './redact.js';
import type { RetryPolicy } from './retry.js';
import type { JsonSchema } from './schema-hash.js';
import type { Effect } from './semconv.js';

declare const rejectionBrand: unique symbol;

/** What `ctx.reject()` returns; return it from `execute` to end the call as REJECTED. */
export type Rejection = {
  readonly [rejectionBrand]: true;
  readonly reason: string;
  readonly message: string;
};

/** What an executor gets besides its validated input. */
export type ToolContext = {
  /** Attempt number of this logical call, 1-based. */
  readonly attempt: number;
  /** Aborted on timeout or when the caller cancels: pass it to fetch, database drivers, … */
  readonly signal: AbortSignal;
  /** The caller's idempotency key; pass it to the upstream so it can deduplicate too. */
  readonly idempotencyKey: string | undefined;
  readonly callId: string | undefined;
  readonly conversationId: string | undefined;
  /** Says that a side effect may have been committed, whatever happens next. */
  markPartialEffect(): void;
  /** A business rule said no: `return ctx.reject('out_of_stock', 'Item 7 is out of stock')`. */
  reject(reason: string, message: string): Rejection;
};

export type ToolDefinition<I extends z.ZodType, O extends z.ZodType> = {
  /** Tool name as the agent sees it: letters, digits, `_`, `-`, `.`; at most 128 characters. */
  name: string;
  /** The author's declared contract version. */
  version: string;
  effect: Effect;
  description: string;
  input: I;
  output: O;
  execute: (
    input: z.output<I>,
    ctx: ToolContext,
  ) => Promise<z.input<O> | Rejection> | z.input<O> | Rejection;
  /** Maps a thrown error to a code; return `undefined` to keep the default classification. */
  classify?: (error: unknown) => ClassifyReturn;
  /** Per-attempt timeout; the executor's `ctx.signal` aborts when it passes. */
  timeoutMs?: number;
  /** Retries on RETRYABLE: reads always, writes only with an idempotency key. */
  retry?: RetryPolicy;
  /** Remembers completed idempotent calls; defaults to an in-memory store (24 h, 10k entries). */
  idempotencyStore?: IdempotencyStore;
  /** How long a completed idempotent call is remembered. */
  idempotencyTtlMs?: number;
  /** Spans go here instead of the global tracer provider. */
  tracerProvider?: TracerProvider;
  /** Content capture: off unless set here or by `TOOLSCOPE_CAPTURE_CONTENT=true`; always redacted. */
  capture?: boolean | CaptureOptions;
  /** Key of the input and idempotency-key hashes; defaults to `TOOLSCOPE_HASH_KEY`. */
  hashKey?: string;
  /** Marks the tool deprecated: every call span says so, and the collector lists who still calls it. */
  deprecated?: Deprecation;
};

export type CallOptions = {
  /** The agent's id for this call (`gen_ai.tool.call.id`). */
  callId?: string;
  /** Groups the calls of one agent session (`gen_ai.conversation.id`). */
  conversationId?: string;
  /** Makes a write safe to repeat: a completed key returns its stored result. */
  idempotencyKey?: string;
  /** Cancels the call; the executor's `ctx.signal` follows it. */
  signal?: AbortSignal;
  /** Attempt number of the first try, for callers that count their own retries (default 1). */
  attempt?: number;
  /** Overrides the tool's capture setting for this call. */
  capture?: boolean;
};

export type Tool<I extends z.ZodType, O extends z.ZodType> = {
  readonly name: string;
  readonly version: string;
  readonly effect: Effect;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** JSON Schema of the input (with `.describe()` texts), as sent in MCP `tools/list`. */
  readonly inputJsonSchema: JsonSchema;
  readonly outputJsonSchema: JsonSchema;
  /** First 16 hex of SHA-256 over the canonical JSON Schemas of input and output. */
  readonly schemaHash: string;
  /** Set when the tool is deprecated (`defineTool({ deprecated })`). */
  readonly deprecated: Deprecation | undefined;
  /** Validates, executes, validates, and answers with the envelope; never throws. */
  call(rawInput: unknown, options?: CallOptions): Promise<ToolResult<z.output<O>>>;
};
