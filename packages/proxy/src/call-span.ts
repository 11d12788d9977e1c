// The span of one `tools/call` seen by the proxy: the adapters' span contract (the instrument's span-contract.ts,
// through proxy-kit) from the request's bytes at start and from the upstream's final answer at the end, plus
// `toolscope.proxy`. A call whose answer leaves it open waits between its legs and polls in logical-calls.ts.
import { type Attributes, type Span, SpanKind } from '@opentelemetry/api';
import {
  fingerprint,
  type Hasher,
  type LogicalCall,
  type Redactor,
  setClient,
  setDeclaration,
  setInput,
  setMcpCall,
  setProxy,
  setRequestIds,
  UNKNOWN_TOOL,
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

/** A call in flight, or waiting between its legs or polls. */
export type OpenCall = {
  span: Span;
  tool: string;
  info: ToolInfo | undefined;
  /** What the call went through before its final answer; undefined while it is a call of one leg. */
  logical: LogicalCall | undefined;
  /** The input's keyed hash: with the tool and the client's span, the key its later legs are found by. */
  inputHash: string;
  /** The client's span the request carried (its legs carry the same), or empty. */
  parentSpanId: string;
  /** When the proxy last heard of the call: its end, if it ends as a part of its call. */
  lastSeenNs: bigint;
};

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
  /** The hash of the `requestState` a later leg echoed, of a call the proxy never saw begin. */
  resumes: string | undefined;
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
  const a = setProxy(setMcpCall({}, tool, c.protocolVersion, c.transport));
  setDeclaration(
    a,
    info
      ? {
          version: info.version,
          schemaHash: info.hash,
          effect: info.effect,
          deprecation: info.deprecation,
        }
      : UNKNOWN_TOOL,
  );
  // The stateless revision has no sessions: `mcp.session.id` is never set for it.
  if (c.sessionId && !isStatelessRevision(c.protocolVersion))
    setRequestIds(a, undefined, c.sessionId, undefined, undefined);
  setClient(a, c.clientName, c.clientVersion);
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
  // The client's own conversation; else, for a call outside any trace of the client's, the session's.
  const conversation = text(request.meta, sc.MCP_META_CONVERSATION_ID) ?? opening.conversation;
  const a = setRequestIds(
    {},
    request.id,
    undefined,
    conversation,
    text(request.meta, sc.MCP_META_CALL_ID),
  );
  const print = fingerprint(request.args ?? {}, c.hasher);
  const captured = c.redactor ? c.redactor(request.args ?? {}) : undefined;
  setInput(a, print.shape, print.hash, captured);
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
  return {
    span,
    tool: request.tool,
    info,
    logical: undefined,
    inputHash: print.hash,
    parentSpanId: opening.parent?.spanId ?? '',
    lastSeenNs: 0n,
  };
}
