// Types shared by the call pipeline's modules; never exported from the package.
import type { Attributes, Context, Link, SpanKind, TracerProvider } from '@opentelemetry/api';
import type { z } from 'zod';
import type { ParsedCallOptions } from './call-options.js';
import type { ToolResult } from './contract.js';
import type { ContractReport } from './contract-report.js';
import type { Hasher } from './hashing.js';
import type { IdempotencyStore } from './idempotency.js';
import type { Redactor } from './redact.js';
import type { ResolvedRetryPolicy } from './retry.js';
import type * as sc from './semconv.js';
import type { SafeSpan } from './telemetry.js';
import type { ToolContext } from './types.js';

/** Call options after parsing, plus what only adapters set. */
export type Opts = ParsedCallOptions & {
  /** The executor's `ctx.signal` without making the call return early on abort (MCP request cancellation). */
  executorSignal?: AbortSignal;
};

/** Everything a call needs about its tool, resolved once by `defineTool`. */
export type ToolInternals = {
  name: string;
  effect: sc.Effect;
  input: z.ZodType;
  output: z.ZodType;
  execute: (input: unknown, ctx: ToolContext) => unknown;
  classify: ((error: unknown) => unknown) | undefined;
  timeoutMs: number | undefined;
  policy: ResolvedRetryPolicy;
  store: IdempotencyStore;
  idempotencyTtlMs: number;
  inFlight: Map<string, { inputDigest: string; done: Promise<Executed> }>;
  tracerProvider: TracerProvider | undefined;
  captureDefault: boolean;
  redactInput: Redactor;
  redactResult: Redactor;
  hasher: Hasher;
  /** Attributes every span of this tool carries (operation, name, version, hash, effect). */
  baseAttributes: Attributes;
  /** `execute_tool {name}`. */
  spanName: string;
  /** What the contract span says about this tool (contract-report.ts). */
  contract: ContractReport;
  /** The provider that last carried the contract span: a pointer check keeps the hot path cheap. */
  contractReportedTo: object | undefined;
};

/** How an adapter (the MCP server wrapper) shapes the span of a call. */
export type SpanOverride = {
  name?: string;
  kind?: SpanKind;
  attributes?: Attributes;
  parent?: Context;
  links?: Link[];
  /** Passed to the executor as `ctx.signal`; the call still waits for the executor when it aborts. */
  executorSignal?: AbortSignal;
  /** Spans of this call go here instead of the tool's own provider. */
  tracerProvider?: TracerProvider;
  /** The adapter measures the result it sends (in `onResult`): the envelope is not measured. */
  measuresOutput?: boolean;
  /** Called with the result before the span ends, to add adapter attributes. */
  onResult?: (result: ToolResult<unknown>, span: SafeSpan) => void;
};

export type Executed = {
  result: ToolResult<unknown>;
  replay: boolean;
  failedAttempts: number;
  /** What the executor returned before output parsing: what an idempotency record keeps. */
  rawOutput?: unknown;
  /** What the last attempt threw, when it threw: the span's `exception` event. */
  error?: unknown;
};
