// The call span's attributes (docs/span-contract.md) in one module, for every producer: defineTool's envelope,
// the MCP server and client adapters, and the proxy (through proxy-kit, decision 0047). Each function writes one
// part of a call into the producer's own attributes object: a producer keeps its own way of caching what repeats
// (a template per tool, attributes encoded once), the keys and the rules that fill them are these. A new attribute
// of the contract is one edit here.
import type { Attributes } from '@opentelemetry/api';
import type { ToolFailure, ValidationIssue } from './contract.js';
import type { Hasher } from './hashing.js';
import type { LogicalCall } from './logical-call.js';
import { mcpOutputFacts } from './output-facts.js';
import * as sc from './semconv.js';

// ── What a call starts with ──

/** The GenAI identity of a tool call: on every call span. */
export function setToolCall(into: Attributes, tool: string): Attributes {
  into[sc.ATTR_GEN_AI_OPERATION_NAME] = sc.GEN_AI_OPERATION_EXECUTE_TOOL;
  into[sc.ATTR_GEN_AI_TOOL_NAME] = tool;
  return into;
}

/** OTel MCP semconv of a `tools/call` span: the method, the GenAI identity, protocol version and transport. */
export function setMcpCall(
  into: Attributes,
  tool: string,
  protocolVersion: string | undefined,
  transport: string | undefined,
): Attributes {
  into[sc.ATTR_MCP_METHOD_NAME] = sc.MCP_METHOD_TOOLS_CALL;
  setToolCall(into, tool);
  if (protocolVersion) into[sc.ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
  if (transport) into[sc.ATTR_NETWORK_TRANSPORT] = transport;
  return into;
}

/**
 * The request's own ids: its JSON-RPC id, the MCP session (the caller leaves it out in 2026-07-28, which has no
 * sessions), the agent's conversation and call id.
 */
export function setRequestIds(
  into: Attributes,
  requestId: string | undefined,
  sessionId: string | undefined,
  conversationId: string | undefined,
  callId: string | undefined,
): Attributes {
  if (requestId !== undefined) into[sc.ATTR_JSONRPC_REQUEST_ID] = requestId;
  if (sessionId !== undefined) into[sc.ATTR_MCP_SESSION_ID] = sessionId;
  if (conversationId) into[sc.ATTR_GEN_AI_CONVERSATION_ID] = conversationId;
  if (callId) into[sc.ATTR_GEN_AI_TOOL_CALL_ID] = callId;
  return into;
}

/** The MCP client at the other end (server spans, the proxy) or the client itself (client spans). */
export function setClient(
  into: Attributes,
  name: string | undefined,
  version: string | undefined,
): Attributes {
  if (name) into[sc.ATTR_TOOLSCOPE_MCP_CLIENT_NAME] = name;
  if (version) into[sc.ATTR_TOOLSCOPE_MCP_CLIENT_VERSION] = version;
  return into;
}

/** The MCP server a client span's call went to, as it named itself. */
export function setServer(
  into: Attributes,
  name: string | undefined,
  version: string | undefined,
): Attributes {
  if (name) into[sc.ATTR_TOOLSCOPE_MCP_SERVER_NAME] = name;
  if (version) into[sc.ATTR_TOOLSCOPE_MCP_SERVER_VERSION] = version;
  return into;
}

/** What a tool declares of itself, as every call span carries it. */
export type ToolDeclaration = {
  version: string;
  schemaHash: string | undefined;
  effect: sc.Effect;
  /** `deprecationAttributes(…)` of a deprecated tool. */
  deprecation: Attributes | undefined;
};

/** The tool's declaration, and what a call starts as: its first attempt, no partial effect. */
export function setDeclaration(into: Attributes, d: ToolDeclaration, attempt = 1): Attributes {
  into[sc.ATTR_TOOLSCOPE_SCHEMA_VERSION] = d.version;
  if (d.schemaHash) into[sc.ATTR_TOOLSCOPE_SCHEMA_HASH] = d.schemaHash;
  into[sc.ATTR_TOOLSCOPE_EFFECT] = d.effect;
  if (d.deprecation) Object.assign(into, d.deprecation);
  into[sc.ATTR_TOOLSCOPE_ATTEMPT] = attempt;
  into[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = false;
  return into;
}

/** The declaration of a tool nothing is known of (a low-level server, a proxy before `tools/list`). */
export const UNKNOWN_TOOL: ToolDeclaration = Object.freeze({
  version: 'unversioned',
  schemaHash: undefined,
  effect: sc.EFFECTS.write,
  deprecation: undefined,
});

/** The input: its shape, its keyed hash when known now, the redacted arguments when content capture is on. */
export function setInput(
  into: Attributes,
  shape: string,
  hash: string | undefined,
  captured: string | undefined,
): Attributes {
  if (hash !== undefined) into[sc.ATTR_TOOLSCOPE_INPUT_HASH] = hash;
  into[sc.ATTR_TOOLSCOPE_INPUT_SHAPE] = shape;
  if (captured !== undefined) into[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = captured;
  return into;
}

/** `toolscope.proxy`: the span of `@toolscope/proxy`, the hop between the caller and the server. */
export function setProxy(into: Attributes): Attributes {
  into[sc.ATTR_TOOLSCOPE_PROXY] = true;
  return into;
}

// ── What a call ends with ──

/** Why a call failed, in the span contract's terms. */
export type CallFailure = {
  /** `error.type`: the envelope's code; `tool_error` for an MCP `isError` result; a JSON-RPC error's code. */
  type: string;
  /** `toolscope.error.code`, when the failure has one of the envelope's codes. */
  code?: sc.ErrorCode | undefined;
  retryable?: boolean | undefined;
  partialEffect?: boolean | undefined;
  reason?: string | undefined;
  issues?: readonly ValidationIssue[] | undefined;
  /** `rpc.response.status_code`: the JSON-RPC error code of a protocol error. */
  rpcStatus?: string | undefined;
};

/** A failed call's attributes; the span's status is ERROR with `failure.type` whenever one is set. */
export function setFailure(into: Attributes, f: CallFailure): Attributes {
  into[sc.ATTR_ERROR_TYPE] = f.type;
  if (f.code !== undefined) into[sc.ATTR_TOOLSCOPE_ERROR_CODE] = f.code;
  if (f.retryable !== undefined) into[sc.ATTR_TOOLSCOPE_RETRYABLE] = f.retryable;
  if (f.partialEffect !== undefined) into[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = f.partialEffect;
  if (f.reason) into[sc.ATTR_TOOLSCOPE_ERROR_REASON] = f.reason;
  if (f.issues !== undefined) into[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(f.issues);
  if (f.rpcStatus !== undefined) into[sc.ATTR_RPC_RESPONSE_STATUS_CODE] = f.rpcStatus;
  return into;
}

/** The failure a `defineTool` envelope says (`error.type` is its code). */
export function envelopeFailure(r: ToolFailure): CallFailure {
  return {
    type: r.code,
    code: r.code,
    retryable: r.retryable,
    partialEffect: r.partialEffect,
    reason: r.reason,
    issues: r.issues,
  };
}

/** An MCP `isError` result (MCP semconv: `tool_error`), with the code its envelope or the SDK's text says. */
export function toolErrorFailure(f: Omit<CallFailure, 'type'>): CallFailure {
  return Object.assign({ type: sc.ERROR_TYPE_TOOL_ERROR }, f);
}

/** A successful answer whose `structuredContent` breaks the tool's advertised output schema. */
export function brokenContractFailure(issues: readonly ValidationIssue[]): CallFailure {
  const code = sc.ERROR_CODES.INVALID_OUTPUT;
  return { type: code, code, retryable: false, issues };
}

/** A JSON-RPC error answer (a protocol error: unknown tool, bad params, a handler's throw the SDK passed on). */
export function rpcFailure(
  code: number | string,
  extra?: Omit<CallFailure, 'type' | 'rpcStatus'>,
): CallFailure {
  const text = String(code);
  return Object.assign({ type: text, rpcStatus: text }, extra);
}

/**
 * What the model reads of an MCP result (size, tokens, items, keyed hash; one walk), and the redacted result when
 * content capture is on.
 */
export function setMcpResult(
  into: Attributes,
  result: unknown,
  hasher: Hasher,
  capture: ((value: unknown) => string) | undefined,
): Attributes {
  mcpOutputFacts(result, hasher, into);
  if (capture && typeof result === 'object' && result !== null) {
    const r = result as Record<string, unknown>;
    into[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = capture(r.structuredContent ?? r.content);
  }
  return into;
}

/**
 * What happened between the first request and the final result: nothing for a call of one leg that never became
 * a task; legs and input wait for a call that asked for input; polls, interval and status for a task; and the
 * linking hashes of a part of a call (semconv.ts).
 */
export function setLogical(into: Attributes, l: LogicalCall): Attributes {
  if (l.legs > 1 || l.resumes !== undefined || l.awaits !== undefined) {
    into[sc.ATTR_TOOLSCOPE_CALL_LEGS] = l.legs;
    into[sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS] = Math.round(l.inputWaitMs);
  }
  if (l.resumes !== undefined) into[sc.ATTR_TOOLSCOPE_CALL_RESUMES] = l.resumes;
  if (l.awaits !== undefined) into[sc.ATTR_TOOLSCOPE_CALL_AWAITS] = l.awaits;
  const task = l.task;
  if (task) {
    into[sc.ATTR_TOOLSCOPE_TASK_ID_HASH] = task.idHash;
    into[sc.ATTR_TOOLSCOPE_TASK_POLLS] = task.polls;
    if (task.pollIntervalMs !== undefined)
      into[sc.ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS] = task.pollIntervalMs;
    into[sc.ATTR_TOOLSCOPE_TASK_STATUS] = task.status;
    if (l.inputWaitMs > 0) into[sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS] = Math.round(l.inputWaitMs);
  }
  return into;
}

/** How a task that did not complete ended, as a failure (`failed` carries its JSON-RPC error). */
export function taskFailure(
  status: 'failed' | 'cancelled',
  error: { code: number } | undefined,
): CallFailure {
  if (status === 'cancelled') return { type: sc.ERROR_TYPE_CANCELLED };
  return error
    ? rpcFailure(error.code, { code: sc.ERROR_CODES.FAILED, retryable: false })
    : { type: sc.ERROR_CODES.FAILED, code: sc.ERROR_CODES.FAILED, retryable: false };
}
