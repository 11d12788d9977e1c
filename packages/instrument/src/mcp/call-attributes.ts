// The attributes of a plain tool's span. What every call of one tool in one session shares is kept as a template:
// the MCP semconv part (method, tool, protocol version, transport, and the request's ids, the attributes a
// sampler is given) goes to `startSpan`, which copies it three times, so it is kept short; Toolscope's own part
// (the client, the tool's profile) is set once on the started span, straight from the template, and the input's
// shape after it (decision 0026). A copy that then gains keys takes V8's slow path (3 µs against 0.07 on Node 20,
// decision 0025), hence one start template per set of optional ids present, holding every key such a call sets.
import type { Attributes } from '@opentelemetry/api';
import * as sc from '../semconv.js';
import { setClient, setInput, setMcpCall, setRequestIds } from '../span-contract.js';
import type { SafeSpan } from '../telemetry.js';
import { type DecodedExtra, requestClientInfo, requestProtocolVersion } from './request-context.js';
import { infoString, networkTransportOf, transportOf } from './sdk-access.js';
import { conversationIdOf, metaString, type ServerState } from './server-state.js';
import type { ToolProfile } from './tool-profile.js';

/** The per-tool, per-session part of a call's attributes, with what it was made from. */
export type CallTemplate = {
  readonly info: unknown;
  readonly version: string | undefined;
  readonly transport: unknown;
  /** MCP semconv attributes every call of the tool starts with. */
  readonly base: Attributes;
  /** Toolscope's attributes every call of the tool sets once its span has started (never changed after). */
  readonly rest: Attributes;
  /** `rest` plus the last input shape seen: calls to one tool mostly repeat their shape, set in one call. */
  withShape: Attributes | undefined;
  /** By presence mask of the optional ids (REQUEST_ID … CALL_ID): the base plus every key such a call sets. */
  readonly variants: (Attributes | undefined)[];
};

const REQUEST_ID = 1;
const SESSION_ID = 2;
const CONVERSATION_ID = 4;
const CALL_ID = 8;

function templateOf(
  name: string,
  profile: ToolProfile,
  info: unknown,
  version: string | undefined,
  transport: unknown,
): CallTemplate {
  const base = setMcpCall({}, name, version, networkTransportOf(transport));
  const rest = setClient({}, infoString(info, 'name'), infoString(info, 'version'));
  Object.assign(rest, profile.attributes);
  return { info, version, transport, base, rest, withShape: undefined, variants: [] };
}

function variantOf(template: CallTemplate, mask: number): Attributes {
  // Placeholders only: every value is written by the call before the span starts.
  const variant: Attributes = Object.assign({}, template.base);
  if (mask & REQUEST_ID) variant[sc.ATTR_JSONRPC_REQUEST_ID] = '';
  if (mask & SESSION_ID) variant[sc.ATTR_MCP_SESSION_ID] = '';
  if (mask & CONVERSATION_ID) variant[sc.ATTR_GEN_AI_CONVERSATION_ID] = '';
  if (mask & CALL_ID) variant[sc.ATTR_GEN_AI_TOOL_CALL_ID] = '';
  template.variants[mask] = variant;
  return variant;
}

/** Whether two client infos name the same client (2026-07-28 requests each carry a new copy of it). */
function sameClient(a: unknown, b: unknown): boolean {
  return (
    a === b ||
    (infoString(a, 'name') === infoString(b, 'name') &&
      infoString(a, 'version') === infoString(b, 'version'))
  );
}

function currentTemplate(state: ServerState, name: string, profile: ToolProfile, e: DecodedExtra) {
  const info = requestClientInfo(state.low, e);
  const version = requestProtocolVersion(e, state.negotiatedVersion);
  const transport = transportOf(state.low);
  const template = profile.template;
  if (
    template !== undefined &&
    template.version === version &&
    template.transport === transport &&
    sameClient(template.info, info)
  )
    return template;
  // The client, the protocol version or the transport changed (or this is the tool's first call).
  profile.template = templateOf(name, profile, info, version, transport);
  return profile.template;
}

/**
 * The start attributes of a call to tool `name`: MCP semconv and the request's ids. The rest is set on the
 * started span by `setCallAttributes`; the input's hash when the span ends.
 */
export function callStartAttributes(
  state: ServerState,
  name: string,
  profile: ToolProfile,
  e: DecodedExtra,
): Attributes {
  const template = currentTemplate(state, name, profile, e);
  const conversationId = conversationIdOf(state, name, e);
  const callId = metaString(e.meta, sc.MCP_META_CALL_ID);
  const mask =
    (e.requestId !== undefined ? REQUEST_ID : 0) |
    (e.sessionId !== undefined ? SESSION_ID : 0) |
    (conversationId ? CONVERSATION_ID : 0) |
    (callId ? CALL_ID : 0);
  const attributes = { ...(template.variants[mask] ?? variantOf(template, mask)) };
  setRequestIds(attributes, e.requestId, e.sessionId, conversationId, callId);
  return attributes;
}

/**
 * Sets the rest of a call's attributes on its started span: the client and the tool's profile (the template
 * itself, which the SDK copies), the input's shape, and its redacted arguments when content capture is on.
 */
export function setCallAttributes(
  span: SafeSpan,
  state: ServerState,
  profile: ToolProfile,
  inputShape: string,
  args: unknown,
): void {
  if (!span.recording) return;
  const template = profile.template;
  const captured = state.capture ? state.redactor(args ?? {}) : undefined;
  if (template === undefined || captured !== undefined) {
    if (template) span.setAttributes(template.rest);
    span.setAttributes(setInput({}, inputShape, undefined, captured));
    return;
  }
  // One `setAttributes` for the per-tool part and the shape (the fingerprint hands back the same shape string
  // while the tool's keys and types repeat), kept with the template until the shape changes.
  let withShape = template.withShape;
  if (withShape?.[sc.ATTR_TOOLSCOPE_INPUT_SHAPE] !== inputShape) {
    withShape = setInput(Object.assign({}, template.rest), inputShape, undefined, undefined);
    template.withShape = withShape;
  }
  span.setAttributes(withShape);
}
