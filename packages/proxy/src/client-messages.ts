// The client's side of one session's traffic (observer.ts): what each request from the client starts. A
// `tools/call` is read before it is forwarded, for the span context and conversation it must carry upstream, and
// opened as a span once its bytes are on their way; `initialize`, `server/discover`, `tools/list` and a task's
// polls wait for their answers (upstream-messages.ts). A later leg of a multi round-trip call goes on under its
// first leg's span (logical-calls.ts).
import { echoedStateOf, newLogicalCall, taskIdOf } from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import { endUnanswered } from './call-end.js';
import { parentOf, startCall, type Unopened } from './call-span.js';
import { readEnvelope, readInitialize } from './envelope.js';
import { idKey, type RpcId, type RpcMessage } from './jsonrpc.js';
import { isRecord, type ObserverState, trackRequest, unreadable } from './observer-state.js';
import { formatTraceparent, nowNs } from './otlp/trace-context.js';

/** Returns the traceparent to send upstream for a tools/call (and sets `passOn`). */
export function onClientMessage(
  s: ObserverState,
  m: RpcMessage,
  calls: string[] | undefined,
): string | undefined {
  if (m.kind !== 'request') return undefined;
  const key = idKey(m.id);
  const c = s.o.context;
  if (m.method === 'initialize') {
    readInitialize(m.params, c);
    s.pending.set(key, { kind: 'bootstrap' });
  } else if (m.method === 'server/discover') {
    // The stateless revision's bootstrap: no handshake, the client's name and version in `_meta`.
    readEnvelope(isRecord(m.params?._meta) ? m.params._meta : undefined, c);
    s.pending.set(key, { kind: 'bootstrap' });
  } else if (m.method === 'tools/list') {
    s.pending.set(key, { kind: 'list', firstPage: m.params?.cursor === undefined });
  } else if (m.method === sc.MCP_METHOD_TOOLS_CALL && typeof m.params?.name === 'string') {
    return onToolsCall(s, key, m.id, m.params.name, m.params, calls);
  } else if (
    (m.method === sc.MCP_METHOD_TASKS_GET || m.method === sc.MCP_METHOD_TASKS_RESULT) &&
    s.o.calls
  ) {
    // A task's poll: counted for the call that created the task when its answer comes.
    const taskId = taskIdOf(m.params);
    const meta = isRecord(m.params?._meta) ? m.params._meta : undefined;
    if (taskId)
      s.pending.set(key, { kind: 'poll', method: m.method, taskId, parent: parentOf(meta) });
  }
  return undefined;
}

/** A `tools/call` request named `tool`: its span reserved, or a later leg's span found; the traceparent to send. */
function onToolsCall(
  s: ObserverState,
  key: string,
  id: RpcId,
  tool: string,
  params: Record<string, unknown>,
  calls: string[] | undefined,
): string {
  const startNs = nowNs();
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const parent = parentOf(meta);
  const conversation = parent ? undefined : sessionConversation(s, meta);
  // Passed on only where `_meta` has no conversation member at all: the client's own is never overwritten.
  s.passOn = meta?.[sc.MCP_META_CONVERSATION_ID] === undefined ? conversation : undefined;
  // A later leg of a multi round-trip call goes on under its first leg's span (logical-calls.ts).
  const echoed = s.o.calls ? echoedStateOf(params) : undefined;
  let resumes: string | undefined;
  if (echoed !== undefined && s.o.calls) {
    const leg = s.o.calls.resume(tool, params.arguments, parent?.spanId ?? '', echoed);
    if (leg.call) {
      s.pending.set(key, { kind: 'call', call: leg.call });
      calls?.push(key);
      const context = leg.call.span.spanContext();
      return formatTraceparent(context.traceId, context.spanId, context.traceFlags);
    }
    resumes = leg.stateHash;
  }
  const ref = s.o.telemetry.tracer().reserve(parent);
  const request = { id: String(id), tool, args: params.arguments, meta };
  s.unopened.push({ key, opening: { parent, ref, startNs, conversation }, resumes, request });
  calls?.push(key);
  s.counts.calls++;
  return formatTraceparent(ref.traceId, ref.spanId, ref.flags);
}

/**
 * The session's conversation for a call outside any trace of the client's, unless it names a conversation of
 * its own (decision 0036): the observer's, or for traffic without a session, its client's.
 */
function sessionConversation(
  s: ObserverState,
  meta: Record<string, unknown> | undefined,
): string | undefined {
  const own = meta?.[sc.MCP_META_CONVERSATION_ID];
  if (typeof own === 'string' && own.length > 0 && own.length <= 256) return undefined;
  return s.conversationOf ? s.conversationOf(meta) : s.o.context.conversationId;
}

/** Opens the spans of the `tools/call` requests read since the last time (observer.ts, `afterForward`). */
export function openReadCalls(s: ObserverState): void {
  if (s.unopened.length === 0) return;
  const calls = s.unopened;
  s.unopened = [];
  for (const u of calls) {
    try {
      open(s, u);
    } catch (error) {
      unreadable(s, 'client', error);
    }
  }
}

function open(s: ObserverState, u: Unopened): void {
  // The client and protocol of this very request (2026-07-28), read as its span opens.
  readEnvelope(u.request.meta, s.o.context);
  const call = startCall(
    s.o.telemetry.tracer(),
    u.opening,
    s.o.context,
    u.request,
    s.o.tools.get(u.request.tool),
  );
  if (u.resumes !== undefined) {
    call.logical = newLogicalCall();
    call.logical.resumes = u.resumes;
  }
  const prior = s.pending.get(u.key);
  // A client that reuses an id in flight: the first call can no longer be matched to its answer.
  if (prior?.kind === 'call') endUnanswered(prior.call);
  trackRequest(s, u.key, { kind: 'call', call });
}
