// Which spans are tool calls (DESIGN.md §1, and any span with `gen_ai.tool.name`), and the typed row the API
// filters and aggregates on. Attribute names come from the instrument package's semconv.
import { validationIssuesAttributeSchema } from '@toolscope/instrument/contract';
import * as sc from '@toolscope/instrument/semconv';
import type { AttrMap, AttrValue, NormalizedSpan } from '../otlp/model.js';

/** OTLP span kind CLIENT: the caller's view of a call; statistics count executions (server / internal). */
export const KIND_CLIENT = 3;

export type ToolCallRow = {
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
  idempotencyKeyHash: string | null;
  conversationId: string | null;
  callId: string | null;
  kind: number;
  service: string | null;
  isError: boolean;
};

/**
 * A column value: cut to `max`, and NUL replaced by U+FFFD, since PostgreSQL text cannot hold it and both
 * backends must store the same.
 */
function text(v: AttrValue | undefined, max = 512): string | null {
  if (typeof v === 'string') {
    const cut = v.length > max ? v.slice(0, max) : v;
    return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

function flag(v: AttrValue | undefined): number | null {
  if (v === true || v === 'true') return 1;
  if (v === false || v === 'false') return 0;
  return null;
}

/** Validation issues re-serialized after a schema check, so stored JSON is always well-formed. */
function issuesOf(v: AttrValue | undefined): string | null {
  if (typeof v !== 'string') return null;
  try {
    const parsed = validationIssuesAttributeSchema.safeParse(JSON.parse(v));
    return parsed.success ? JSON.stringify(parsed.data.slice(0, 20)) : null;
  } catch {
    return null;
  }
}

/** The tool-call row of a span, or null when the span is not a tool call. */
export function toolCallOf(span: NormalizedSpan): ToolCallRow | null {
  const a: AttrMap = span.attributes;
  const tool = text(a[sc.ATTR_GEN_AI_TOOL_NAME], 256);
  if (!tool) return null;
  const code = text(a[sc.ATTR_TOOLSCOPE_ERROR_CODE], 64);
  const errorType = text(a[sc.ATTR_ERROR_TYPE], 128);
  const attemptRaw = a[sc.ATTR_TOOLSCOPE_ATTEMPT];
  const attempt =
    typeof attemptRaw === 'number' && Number.isInteger(attemptRaw) && attemptRaw >= 1
      ? attemptRaw
      : 1;
  const durationNs = span.endNs > span.startNs ? span.endNs - span.startNs : 0n;
  return {
    tool,
    version: text(a[sc.ATTR_TOOLSCOPE_SCHEMA_VERSION], 64),
    schemaHash: text(a[sc.ATTR_TOOLSCOPE_SCHEMA_HASH], 64),
    attempt,
    code,
    errorType,
    reason: text(a[sc.ATTR_TOOLSCOPE_ERROR_REASON], 128),
    retryable: flag(a[sc.ATTR_TOOLSCOPE_RETRYABLE]),
    partialEffect: flag(a[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT]) ?? 0,
    effect: text(a[sc.ATTR_TOOLSCOPE_EFFECT], 16),
    durationMs: Number(durationNs) / 1e6,
    startNs: span.startNs,
    issues: issuesOf(a[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES]),
    inputHash: text(a[sc.ATTR_TOOLSCOPE_INPUT_HASH], 64),
    inputShape: text(a[sc.ATTR_TOOLSCOPE_INPUT_SHAPE], 2048),
    idempotencyKeyHash: text(a[sc.ATTR_TOOLSCOPE_IDEMPOTENCY_KEY_HASH], 64),
    conversationId: text(a[sc.ATTR_GEN_AI_CONVERSATION_ID], 256),
    callId: text(a[sc.ATTR_GEN_AI_TOOL_CALL_ID], 256),
    kind: span.kind,
    service: text(span.resource['service.name'], 256),
    // Foreign instrumentations may only set error.type or an ERROR status: still an error.
    isError: code !== null || errorType !== null || span.statusCode === 2,
  };
}

/** The key a call is counted under in `codes`: our code, else error.type, else ERROR for a bare status. */
export function codeKey(code: string | null, errorType: string | null, isError: boolean): string {
  return code ?? errorType ?? (isError ? 'ERROR' : '');
}
