// What a tool call is: the named fields of a span that one of the dialects (dialects.ts) recognises as a
// tool call, read once at intake and again, by the same function, when the API shows a stored span. Toolscope's
// own fields come from the instrument package's semconv; the code follows the one rule of code.ts.
import * as sc from '@toolscope/instrument/semconv';
import { z } from 'zod';
import { type CallSource, DIALECTS, type Dialect } from './dialects.js';
import { isPollPart, type LogicalCall, logicalOf, POLL_PART_TOOL } from './logical-call.js';
import { type CallSpan, dialectOf, firstValue, toolNameOf } from './recognise.js';

/** The resource attribute naming the service (OTel resource semconv). */
export const ATTR_SERVICE_NAME = 'service.name';

/** A tool call as every stage sees it. `code` is the envelope's own code as sent; `callCode` gives the rule's. */
export type ToolCall = {
  tool: string;
  version: string | null;
  schemaHash: string | null;
  attempt: number;
  code: string | null;
  errorType: string | null;
  reason: string | null;
  retryable: number | null;
  partialEffect: number;
  effect: string | null;
  durationMs: number;
  startNs: bigint;
  issues: string | null;
  inputHash: string | null;
  inputShape: string | null;
  /** Keyed hash of the result as the model read it (`toolscope.output.hash`): same result, same hash. */
  outputHash: string | null;
  /** The span is `toolscope proxy`'s view of the call, between the agent and the server (pairing.ts). */
  proxy: boolean;
  idempotencyKeyHash: string | null;
  conversationId: string | null;
  callId: string | null;
  kind: number;
  service: string | null;
  isError: boolean;
  source: CallSource;
  /** The last `exception` event's type and message (docs/contracts.md), when the call threw. */
  exceptionType: string | null;
  exceptionMessage: string | null;
  /** The MCP client's name (`toolscope.mcp.client.name`), when the span names it. */
  clientName: string | null;
  /** The MCP client's version (`toolscope.mcp.client.version`), when the span names it. */
  clientVersion: string | null;
  /** What the result cost the model's context (`toolscope.output.bytes` / `.tokens`), when the span says. */
  resultBytes: number | null;
  resultTokens: number | null;
  /** Legs, input wait, a task's polls and the parts' links (logical-call.ts); null for one leg and no task. */
  logical: LogicalCall | null;
};

/**
 * A column value: cut to `max`, and NUL replaced by U+FFFD, since PostgreSQL text cannot hold it and both
 * backends must store the same.
 */
function text(v: unknown, max = 512): string | null {
  if (typeof v === 'string') {
    const cut = v.length > max ? v.slice(0, max) : v;
    return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** A size attribute: a whole number ≥ 0 that fits a double exactly, else unknown. */
function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

function flag(v: unknown): number | null {
  if (v === true || v === 'true') return 1;
  if (v === false || v === 'false') return 0;
  return null;
}

/** What a producer may leave out of an issue item: a missing code is `unknown`, a missing path the root. */
const UNKNOWN_ISSUE_CODE = 'unknown';
const lenientIssue = z.object({
  path: z.string().catch(''),
  code: z.string().catch(UNKNOWN_ISSUE_CODE),
  message: z.string().catch(''),
});

/**
 * Validation issues re-serialized after a schema check, so stored JSON is always well-formed. Items are read
 * one by one and leniently: one item without a `code` no longer costs the span all of its issues.
 */
function issuesOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  let items: unknown;
  try {
    items = JSON.parse(v);
  } catch {
    return null;
  }
  if (!Array.isArray(items)) return null;
  const out = [];
  for (const item of items.slice(0, 20)) {
    if (typeof item !== 'object' || item === null) continue;
    out.push(lenientIssue.parse(item));
  }
  return JSON.stringify(out);
}

/** How much of an MCP client's name and version a call keeps. */
export const CLIENT_NAME_MAX = 128;
export const CLIENT_VERSION_MAX = 64;

/** A column value that is absent when empty: an empty code or error.type names no failure. */
const nonEmpty = (v: string | null) => (v === '' ? null : v);

/** The MCP dialect, whose fields a `tasks/get` part (no tool, so no dialect matches it) is read with. */
const MCP_DIALECT = DIALECTS.find((d) => d.source === 'mcp') as Dialect;

/**
 * The tool call a span records, or null when the span is not a tool call. A `tasks/get` part of a task's call
 * (logical-call.ts isPollPart) is read as a call of no tool (POLL_PART_TOOL), which only the join counts.
 */
export function toolCallOf(span: CallSpan): ToolCall | null {
  const a = span.attributes;
  const found = dialectOf(span);
  const pollPart = found === null && isPollPart(a);
  const dialect = pollPart ? MCP_DIALECT : found;
  if (!dialect) return null;
  const tool = pollPart ? POLL_PART_TOOL : text(toolNameOf(dialect, span), 256);
  if (tool === null || (tool === '' && !pollPart)) return null;
  const code = nonEmpty(text(a[sc.ATTR_TOOLSCOPE_ERROR_CODE], 64));
  const errorType = nonEmpty(text(a[sc.ATTR_ERROR_TYPE], 128));
  const attemptRaw = a[sc.ATTR_TOOLSCOPE_ATTEMPT];
  const attempt =
    typeof attemptRaw === 'number' && Number.isInteger(attemptRaw) && attemptRaw >= 1
      ? attemptRaw
      : 1;
  const durationNs = span.endNs > span.startNs ? span.endNs - span.startNs : 0n;
  const exception = lastException(span);
  return {
    tool,
    version: text(a[sc.ATTR_TOOLSCOPE_SCHEMA_VERSION], 64),
    schemaHash: text(a[sc.ATTR_TOOLSCOPE_SCHEMA_HASH], 64),
    attempt,
    code,
    errorType,
    reason: text(a[sc.ATTR_TOOLSCOPE_ERROR_REASON], 128),
    retryable: flag(a[sc.ATTR_TOOLSCOPE_RETRYABLE]),
    partialEffect: flag(a[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT]) ?? PARTIAL_EFFECT_UNKNOWN,
    effect: text(a[sc.ATTR_TOOLSCOPE_EFFECT], 16),
    durationMs: Number(durationNs) / 1e6,
    startNs: span.startNs,
    issues: issuesOf(a[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES]),
    inputHash: text(a[sc.ATTR_TOOLSCOPE_INPUT_HASH], 64),
    inputShape: text(a[sc.ATTR_TOOLSCOPE_INPUT_SHAPE], 2048),
    outputHash: text(a[sc.ATTR_TOOLSCOPE_OUTPUT_HASH], 64),
    proxy: a[sc.ATTR_TOOLSCOPE_PROXY] === true,
    idempotencyKeyHash: text(a[sc.ATTR_TOOLSCOPE_IDEMPOTENCY_KEY_HASH], 64),
    conversationId: text(firstValue(a, dialect.conversationId), 256),
    callId: text(firstValue(a, dialect.callId), 256),
    kind: span.kind,
    service: text(span.resource[ATTR_SERVICE_NAME], 256),
    // Foreign instrumentations may only set error.type or an ERROR status: still an error.
    isError: code !== null || errorType !== null || span.statusCode === 2,
    source: dialect.source,
    clientName: nonEmpty(text(a[sc.ATTR_TOOLSCOPE_MCP_CLIENT_NAME], CLIENT_NAME_MAX)),
    clientVersion: nonEmpty(text(a[sc.ATTR_TOOLSCOPE_MCP_CLIENT_VERSION], CLIENT_VERSION_MAX)),
    resultBytes: count(a[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES]),
    resultTokens: count(a[sc.ATTR_TOOLSCOPE_OUTPUT_TOKENS]),
    logical: logicalOf(a, span.startNs, pollPart),
    // The cause the span's last `exception` event names (the message as stored: redacted). Written as fields,
    // not spread from an object: a spread made the call's object over again for every call.
    exceptionType: exception ? text(exception[sc.ATTR_EXCEPTION_TYPE], 128) : null,
    exceptionMessage: exception ? text(exception[sc.ATTR_EXCEPTION_MESSAGE], 1024) : null,
  };
}

/** The attributes of the span's last `exception` event, if it has one. */
function lastException(span: CallSpan): CallSpan['events'][number]['attributes'] | undefined {
  for (let i = span.events.length - 1; i >= 0; i--) {
    const event = span.events[i];
    if (event?.name === sc.EVENT_EXCEPTION) return event.attributes;
  }
  return undefined;
}

/**
 * partial_effect of a span that does not say (a caller's span, a foreign dialect): neither 0 ("no effect") nor
 * 1, so every `= 1` test keeps reading it as "not known to have had an effect", and the API says null.
 */
export const PARTIAL_EFFECT_UNKNOWN = -1;
