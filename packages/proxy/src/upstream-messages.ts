// The upstream's side of one session's traffic (observer.ts): what each answer from the upstream ends. A
// `tools/call` answer ends its span (or parks it, when the answer leaves the call open: input asked for, a task),
// a poll's answer counts for its task's call, `initialize` and `server/discover` name the server, `tools/list`
// gives the contracts, and a request from the upstream may ask for a round of input (input-rounds.ts).
import { unfinishedOf } from '@toolscope/instrument/proxy-kit';
import { checkOutput, endWithError, endWithResult } from './call-end.js';
import type { OpenCall } from './call-span.js';
import { enforcedResponse } from './enforce.js';
import { readServer } from './envelope.js';
import { idKey, type RpcMessage } from './jsonrpc.js';
import { isRecord, type ObserverState, type Pending } from './observer-state.js';

/** The calls among the requests in flight. */
function* callsIn(pending: Map<string, Pending>): Generator<OpenCall> {
  for (const p of pending.values()) if (p.kind === 'call') yield p.call;
}

/** One message from the upstream; with `--enforce-output`, the replacement for a result that broke its contract. */
export function onUpstreamMessage(s: ObserverState, m: RpcMessage): Buffer | undefined {
  if (m.kind === 'notification') {
    if (m.method === 'notifications/tools/list_changed')
      s.o.log.log(
        'info',
        'upstream tools changed; contracts are read again from the next tools/list',
      );
    return undefined;
  }
  if (m.kind === 'request') {
    if (s.o.calls) s.rounds.asked(m.id, m.method, callsIn(s.pending));
    return undefined;
  }
  if (m.id === null) return undefined;
  const key = idKey(m.id);
  const pending = s.pending.get(key);
  if (!pending) return undefined;
  s.pending.delete(key);
  // A 2026-07-28 server names itself in every answer: the session's spans are named by it.
  if (m.kind === 'result') readServer(m.result, s.o.telemetry.server, pending.kind === 'bootstrap');
  if (pending.kind === 'bootstrap') {
    if (m.kind === 'result') onInitialized(s, m.result);
    return undefined;
  }
  if (pending.kind === 'list') {
    if (m.kind === 'result') {
      const read = s.o.tools.update(m.result, pending.firstPage, s.o.telemetry.provider());
      s.o.log.log('debug', 'tools listed', { tools: read });
    }
    return undefined;
  }
  if (pending.kind === 'poll') {
    if (m.kind === 'result') {
      const { method, taskId, parent } = pending;
      s.o.calls?.answered(method, taskId, m.result, s.o.context, s.o.telemetry.tracer(), parent);
    }
    return undefined;
  }
  const { call } = pending;
  if (m.kind === 'error') {
    endWithError(call, m.code, m.message);
    return undefined;
  }
  // An answer that leaves the call open (input asked for, a task): its span waits for the next leg or poll.
  const open = s.o.calls ? unfinishedOf(m.result) : undefined;
  if (open) {
    s.o.calls?.park(call, open);
    return undefined;
  }
  const broken = checkOutput(call, m.result);
  endWithResult(call, s.o.context, m.result, broken);
  if (broken && s.o.enforceOutput) {
    s.counts.enforced++;
    return enforcedResponse(m.id, call.tool, broken);
  }
  return undefined;
}

/** The protocol version `initialize` agreed on (`server/discover` answers with the versions it supports). */
function onInitialized(s: ObserverState, result: unknown): void {
  if (isRecord(result) && typeof result.protocolVersion === 'string')
    s.o.context.protocolVersion = result.protocolVersion.slice(0, 64);
}
