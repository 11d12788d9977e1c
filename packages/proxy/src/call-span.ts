// The span of one `tools/call` seen by the proxy: the adapters' span contract (DESIGN.md §1) from the request's
// bytes at start and from the upstream's answer at the end, plus `toolscope.proxy`.
import { type Attributes, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  fingerprint,
  type Hasher,
  mcpOutputFacts,
  outcomeOfPlainResult,
  type Redactor,
  sdkValidationOfResult,
  sdkValidationOfText,
} from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import { isStatelessRevision } from './envelope.js';
import type { ParentRef, SharedAttributes } from './otlp/proxy-span.js';
import type { ProxyTracer } from './otlp/proxy-tracer.js';
import { parseTraceparent, type SpanRef } from './otlp/trace-context.js';
import type { ToolInfo } from './tool-table.js';

/** What the proxy knows of the conversation around a call. */
export type CallContext = {
  transport: typeof sc.NETWORK_TRANSPORT_PIPE | typeof sc.NETWORK_TRANSPORT_TCP;
  protocolVersion: string | undefined;
  sessionId: string | undefined;
  clientName: string | undefined;
  clientVersion: string | undefined;
  /**
   * The session as a conversation (random, one per session): the `gen_ai.conversation.id` of its calls that
   * carry neither trace context nor a conversation id of their own, so an uninstrumented client's loops are seen.
   */
  conversationId: string;
  hasher: Hasher;
  redactor: Redactor | undefined;
};

/** A call in flight. */
export type OpenCall = { span: Span; tool: string; info: ToolInfo | undefined };

const text = (meta: Record<string, unknown> | undefined, key: string): string | undefined => {
  const v = meta?.[key];
  return typeof v === 'string' && v.length > 0 && v.length <= 256 ? v : undefined;
};

/**
 * The identity and start time of a call's span, decided when its request arrived, before it was forwarded, and
 * the session's conversation when the call is outside any trace and conversation of the client's.
 */
export type Opening = {
  parent: ParentRef | undefined;
  ref: SpanRef;
  startNs: bigint;
  conversation: string | undefined;
};

/** A `tools/call` forwarded with its span's identity, its span not made yet (the observer makes it next). */
export type Unopened = {
  key: string;
  opening: Opening;
  request: { id: string; tool: string; args: unknown; meta: Record<string, unknown> | undefined };
};

/** The client's span from `_meta` (W3C trace context), or none: a new trace. */
export function parentOf(meta: Record<string, unknown> | undefined): ParentRef | undefined {
  const ref = meta ? parseTraceparent(meta.traceparent, meta.tracestate) : undefined;
  return ref ? { ...ref, remote: true } : undefined;
}

/** A call span's attributes that are the same for every call of one tool in one session, encoded once. */
type Fixed = {
  tracer: ProxyTracer;
  info: ToolInfo | undefined;
  transport: CallContext['transport'];
  protocolVersion: string | undefined;
  sessionId: string | undefined;
  clientName: string | undefined;
  clientVersion: string | undefined;
  attributes: Attributes;
  /** Undefined when the span limits would cut them: each span then takes `attributes` one by one. */
  shared: SharedAttributes | undefined;
};

// Per session, per tool name: what the session's calls of that tool share, kept while it stays true. Names are
// the client's to choose, so a session keeps at most this many.
const fixedOf = new WeakMap<CallContext, Map<string, Fixed>>();
const MAX_FIXED_TOOLS = 256;

function fixedAttributes(
  tracer: ProxyTracer,
  c: CallContext,
  tool: string,
  info: ToolInfo | undefined,
): Fixed {
  let byTool = fixedOf.get(c);
  if (!byTool) {
    byTool = new Map();
    fixedOf.set(c, byTool);
  }
  const known = byTool.get(tool);
  if (
    known?.tracer === tracer &&
    known.info === info &&
    known.transport === c.transport &&
    known.protocolVersion === c.protocolVersion &&
    known.sessionId === c.sessionId &&
    known.clientName === c.clientName &&
    known.clientVersion === c.clientVersion
  )
    return known;
  const a: Attributes = {
    [sc.ATTR_MCP_METHOD_NAME]: sc.MCP_METHOD_TOOLS_CALL,
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
    [sc.ATTR_NETWORK_TRANSPORT]: c.transport,
    [sc.ATTR_TOOLSCOPE_PROXY]: true,
    [sc.ATTR_TOOLSCOPE_SCHEMA_VERSION]: info?.version ?? 'unversioned',
    [sc.ATTR_TOOLSCOPE_EFFECT]: info?.effect ?? sc.EFFECTS.write,
    [sc.ATTR_TOOLSCOPE_ATTEMPT]: 1,
  };
  if (info) a[sc.ATTR_TOOLSCOPE_SCHEMA_HASH] = info.hash;
  if (info?.deprecation) Object.assign(a, info.deprecation);
  if (c.protocolVersion) a[sc.ATTR_MCP_PROTOCOL_VERSION] = c.protocolVersion;
  // The stateless revision has no sessions: `mcp.session.id` is never set for it.
  if (c.sessionId && !isStatelessRevision(c.protocolVersion))
    a[sc.ATTR_MCP_SESSION_ID] = c.sessionId;
  if (c.clientName) a[sc.ATTR_TOOLSCOPE_MCP_CLIENT_NAME] = c.clientName;
  if (c.clientVersion) a[sc.ATTR_TOOLSCOPE_MCP_CLIENT_VERSION] = c.clientVersion;
  const { transport, protocolVersion, sessionId, clientName, clientVersion } = c;
  const shared = tracer.share(a);
  const entry = {
    tracer,
    info,
    transport,
    protocolVersion,
    sessionId,
    clientName,
    clientVersion,
    attributes: a,
    shared,
  };
  if (byTool.size >= MAX_FIXED_TOOLS) byTool.clear();
  byTool.set(tool, entry);
  return entry;
}

/**
 * Starts the SERVER span of a call as `opening` decided (under the client's context, or a new trace). What all
 * calls of the tool in the session share is encoded once; the span holds only what is the call's own.
 */
export function startCall(
  tracer: ProxyTracer,
  opening: Opening,
  c: CallContext,
  request: { id: string; tool: string; args: unknown; meta: Record<string, unknown> | undefined },
  info: ToolInfo | undefined,
): OpenCall {
  const a: Attributes = {
    [sc.ATTR_JSONRPC_REQUEST_ID]: request.id,
    [sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT]: false,
  };
  // The client's own conversation; else, for a call outside any trace of the client's, the session's.
  const conversation = text(request.meta, sc.MCP_META_CONVERSATION_ID) ?? opening.conversation;
  if (conversation) a[sc.ATTR_GEN_AI_CONVERSATION_ID] = conversation;
  const callId = text(request.meta, sc.MCP_META_CALL_ID);
  if (callId) a[sc.ATTR_GEN_AI_TOOL_CALL_ID] = callId;
  const print = fingerprint(request.args ?? {}, c.hasher);
  a[sc.ATTR_TOOLSCOPE_INPUT_HASH] = print.hash;
  a[sc.ATTR_TOOLSCOPE_INPUT_SHAPE] = print.shape;
  if (c.redactor) a[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = c.redactor(request.args ?? {});
  const fixed = fixedAttributes(tracer, c, request.tool, info);
  const span = tracer.open(
    opening.ref,
    `${sc.SPAN_NAME_MCP_TOOLS_CALL_PREFIX} ${request.tool}`,
    SpanKind.SERVER,
    fixed.shared ? a : { ...fixed.attributes, ...a },
    opening.parent,
    opening.startNs,
    true,
    fixed.shared,
  );
  return { span, tool: request.tool, info };
}

function fail(span: Span, a: Attributes, errorType: string, code: sc.ErrorCode, why: string): void {
  a[sc.ATTR_ERROR_TYPE] = errorType;
  a[sc.ATTR_TOOLSCOPE_ERROR_CODE] = code;
  if (a[sc.ATTR_TOOLSCOPE_RETRYABLE] === undefined) a[sc.ATTR_TOOLSCOPE_RETRYABLE] = false;
  span.setAttributes(a);
  span.setStatus({ code: SpanStatusCode.ERROR, message: why });
}

/** What the upstream's result says; the output check's issues when a successful result breaks its schema. */
export type Verdict = { brokenContract: ReturnType<NonNullable<ToolInfo['check']>> };

/** Checks a successful result against the advertised outputSchema (MCP: structuredContent must then be there). */
export function checkOutput(call: OpenCall, result: unknown): Verdict['brokenContract'] {
  const check = call.info?.check;
  if (!check || typeof result !== 'object' || result === null) return undefined;
  if (Reflect.get(result, 'isError') === true) return undefined;
  const structured: unknown = Reflect.get(result, 'structuredContent');
  if (structured === undefined)
    return [{ path: '(root)', code: 'missing', message: 'structuredContent is missing' }];
  return check(structured);
}

/** Ends a call with the upstream's result. */
export function endWithResult(
  call: OpenCall,
  c: CallContext,
  result: unknown,
  broken: Verdict['brokenContract'],
): void {
  const { span } = call;
  const a: Attributes = {};
  // The result's measure and its output hash from one walk.
  mcpOutputFacts(result, c.hasher, a);
  if (c.redactor && typeof result === 'object' && result !== null) {
    const r = result as Record<string, unknown>;
    a[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = c.redactor(r.structuredContent ?? r.content);
  }
  const outcome = outcomeOfPlainResult(result, undefined, undefined);
  if (broken) {
    a[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(broken);
    fail(span, a, sc.ERROR_CODES.INVALID_OUTPUT, 'INVALID_OUTPUT', 'INVALID_OUTPUT');
  } else if (!outcome.ok) {
    a[sc.ATTR_TOOLSCOPE_RETRYABLE] = outcome.retryable;
    a[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = outcome.partialEffect;
    if (outcome.reason) a[sc.ATTR_TOOLSCOPE_ERROR_REASON] = outcome.reason;
    // Without the server's schemas, the SDK's own message says which fields it refused.
    const sdk = outcome.issues ? undefined : sdkValidationOfResult(result);
    const issues = outcome.issues ?? sdk?.issues;
    if (issues) a[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(issues);
    const code = sdk && outcome.code === sc.ERROR_CODES.FAILED ? sdk.code : outcome.code;
    fail(span, a, sc.ERROR_TYPE_TOOL_ERROR, code, code);
  } else {
    span.setAttributes(a);
  }
  span.end();
}

/**
 * Ends a call answered with a JSON-RPC error: `error.type` is its code, as a string. The error's message stays
 * out of the span (servers put argument values in it); from an SDK's -32602 only the paths it names are kept.
 */
export function endWithError(call: OpenCall, code: number, message: string): void {
  const a: Attributes = { [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: String(code) };
  const sdk = code === INVALID_PARAMS ? sdkValidationOfText(message) : undefined;
  if (sdk) a[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(sdk.issues);
  fail(call.span, a, String(code), sdk?.code ?? 'FAILED', `JSON-RPC error ${code}`);
  call.span.end();
}

/** JSON-RPC's "invalid params": what older SDK 1.x releases answer for arguments that break the schema. */
const INVALID_PARAMS = -32602;

/** Ends a call left in flight when the upstream exited (or the proxy stopped): a write may have happened. */
export function endUnanswered(call: OpenCall): void {
  const a: Attributes = {
    [sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT]:
      (call.info?.effect ?? sc.EFFECTS.write) === sc.EFFECTS.write,
  };
  fail(call.span, a, sc.ERROR_TYPE_UPSTREAM_EXITED, 'FAILED', 'upstream exited before answering');
  call.span.end();
}
