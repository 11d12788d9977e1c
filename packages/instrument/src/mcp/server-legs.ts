// One logical call across requests on the server side (decision 0046). A plain tool's call whose answer leaves it
// open (`input_required`, or a task) keeps its span open, parked in this process until its next leg arrives (a
// `tools/call` echoing its `requestState`) or its task's poll says it is over; each leg and poll adds to the call's
// record. What this process never sees the end of (a stateless 2026-07-28 server behind a load balancer) ends as a
// part of its call, with the linking hashes the collector joins parts by. Parked calls are per process, not per
// server instance: SDK v2's `createMcpHandler` makes an instance per request.
import { SpanKind } from '@opentelemetry/api';
import { fingerprint } from '../fingerprint.js';
import {
  isTerminal,
  type LogicalCall,
  newLogicalCall,
  nextLeg,
  taskPolled,
  waitForInput,
} from '../logical-call.js';
import { Parked, type ParkedEnd } from '../parked.js';
import * as sc from '../semconv.js';
import { setFailure, setLogical, setMcpResult, taskFailure } from '../span-contract.js';
import { startSafeSpanOf } from '../telemetry.js';
import { pollOf, taskIdOf, type Unfinished } from './answer.js';
import { endPlainCall, endPlainFailure, inputHashOf, type PlainEnd } from './plain-finish.js';
import { serverParent } from './propagation.js';
import { decodeExtra } from './request-context.js';
import { isRecord, type RawHandler } from './sdk-access.js';
import type { ServerState } from './server-state.js';

/** A leg's wait for the client is human-paced: the SDK's own shim allows 10 minutes a round. */
const INPUT_IDLE_MS = 600_000;
/** A task unpolled for this long (or ten of its poll intervals, if longer) is polled elsewhere, or abandoned. */
const TASK_IDLE_MS = 600_000;
const MAX_PARKED = 10_000;

/** A plain call waiting for its next leg or poll, with when it was last heard of (its end if it ends here). */
type ParkedCall = PlainEnd & { logical: LogicalCall; lastSeen: number };

const parked = new Parked<ParkedCall>({ max: MAX_PARKED, onEnd: endAsPart });

/** A call that will not be resumed here ends as a part of its call, at the time it was last heard of. */
function endAsPart(call: ParkedCall, _why: ParkedEnd): void {
  const end = setLogical({}, call.logical);
  const hash = inputHashOf(call);
  if (hash !== undefined) end[sc.ATTR_TOOLSCOPE_INPUT_HASH] = hash;
  call.span.setAttributes(end);
  call.span.end(undefined, call.lastSeen);
}

const legKey = (tool: string, inputHash: string, parentSpanId: string, stateHash: string) =>
  `leg\n${tool}\n${inputHash}\n${parentSpanId}\n${stateHash}`;
const taskKey = (taskId: string) => `task\n${taskId}`;

/**
 * Keeps the span of a call whose answer left it open: waiting for the leg that echoes its `requestState`, or for
 * its task's polls. `parentSpanId` is the client's span the legs carry in `_meta` (empty without one).
 */
export function parkOpenCall(
  call: PlainEnd,
  tool: string,
  open: Unfinished,
  parentSpanId: string,
): void {
  const now = performance.now();
  const hasher = call.state.hasher;
  const logical = call.logical ?? newLogicalCall();
  // The input's hash is the legs' key: taken now, kept instead of the bytes.
  const inputHash = inputHashOf(call) ?? '';
  const entry: ParkedCall = Object.assign(call, {
    logical,
    input: inputHash,
    inputHashed: true,
    lastSeen: now,
  });
  if (open.kind === 'input_required') {
    const stateHash = hasher(open.requestState);
    waitForInput(logical, stateHash, now);
    parked.park(legKey(tool, inputHash, parentSpanId, stateHash), entry, INPUT_IDLE_MS);
    return;
  }
  logical.task = {
    idHash: hasher(open.taskId),
    polls: 0,
    pollIntervalMs: open.pollIntervalMs,
    status: open.status,
  };
  parked.park(taskKey(open.taskId), entry, taskIdle(open.pollIntervalMs));
}

const taskIdle = (interval: number | undefined) => Math.max(TASK_IDLE_MS, 10 * (interval ?? 0));

/**
 * The parked call a later leg continues (same tool, input, client span and `requestState`), with the leg counted;
 * undefined when this process never saw the call begin (the leg's span is then a part that `resumes` it).
 */
export function resumeLeg(
  state: ServerState,
  tool: string,
  args: unknown,
  parentSpanId: string,
  requestState: string,
): { call: ParkedCall | undefined; stateHash: string } {
  const stateHash = state.hasher(requestState);
  const inputHash = fingerprint(args ?? {}, state.hasher).hash;
  const call = parked.take(legKey(tool, inputHash, parentSpanId, stateHash));
  if (call) {
    nextLeg(call.logical, performance.now());
    call.state = state;
  }
  return { call, stateHash };
}

/** The span id of the client span a request carries in `_meta` (the legs of one call carry the same). */
export function parentSpanIdOf(meta: Record<string, unknown> | undefined): string {
  const traceparent = meta?.traceparent;
  return typeof traceparent === 'string' && traceparent.length >= 52
    ? traceparent.slice(36, 52)
    : '';
}

/**
 * Wraps the `tasks/get` handler (and 2025-11-25's `tasks/result`): each answer for a task parked here is a poll of
 * its call, and a terminal one ends the call with the task's outcome. A poll of a task this process did not see
 * created is recorded as a part of that call (a `tasks/get` span with its task's hash).
 */
export function taskPolls(state: ServerState, method: string) {
  return (original: RawHandler): RawHandler =>
    async function tasksRequest(request: unknown, extra: unknown): Promise<unknown> {
      const answer = await original(request, extra);
      const taskId = taskIdOf(isRecord(request) ? request.params : undefined);
      if (taskId === undefined) return answer;
      try {
        if (method === sc.MCP_METHOD_TASKS_RESULT) {
          const call = parked.take(taskKey(taskId));
          if (call) endPlainCall(call, answer, undefined, extra);
        } else onPoll(state, taskId, answer, extra);
      } catch {
        // Telemetry never breaks the poll (the span's own guards log what failed).
      }
      return answer;
    };
}

function onPoll(state: ServerState, taskId: string, answer: unknown, extra: unknown): void {
  const poll = pollOf(answer);
  if (!poll) return;
  const now = performance.now();
  // A 2025-11-25 task says `completed` first and hands its result to `tasks/result`: the call ends there.
  const over =
    isTerminal(poll.status) && (poll.status !== 'completed' || poll.result !== undefined);
  const key = taskKey(taskId);
  const call = over ? parked.take(key) : parked.touch(key, taskIdle(poll.pollIntervalMs));
  if (!call) {
    pollPart(state, taskId, poll, extra);
    return;
  }
  taskPolled(call.logical, poll.status, poll.pollIntervalMs, now);
  call.lastSeen = now;
  if (!over) return;
  if (poll.status === 'completed') endPlainCall(call, poll.result, undefined, undefined);
  else if (poll.status === 'failed' || poll.status === 'cancelled')
    endPlainFailure(call, taskFailure(poll.status, poll.error), poll.status);
}

/** A poll of a task whose call began elsewhere: a `tasks/get` span the collector joins by the task's hash. */
function pollPart(
  state: ServerState,
  taskId: string,
  poll: NonNullable<ReturnType<typeof pollOf>>,
  extra: unknown,
): void {
  const e = decodeExtra(extra);
  const { parent, links } = serverParent(e.meta, e.headers);
  const logical = newLogicalCall();
  logical.task = {
    idHash: state.hasher(taskId),
    polls: 0,
    pollIntervalMs: poll.pollIntervalMs,
    status: poll.status,
  };
  taskPolled(logical, poll.status, poll.pollIntervalMs, performance.now());
  const attributes = setLogical({ [sc.ATTR_MCP_METHOD_NAME]: sc.MCP_METHOD_TASKS_GET }, logical);
  if (e.requestId !== undefined) attributes[sc.ATTR_JSONRPC_REQUEST_ID] = e.requestId;
  const span = startSafeSpanOf(
    state.options.tracerProvider,
    sc.MCP_METHOD_TASKS_GET,
    SpanKind.SERVER,
    attributes,
    parent,
    links,
  );
  let error: string | undefined;
  if (poll.status === 'completed' && poll.result !== undefined)
    span.setAttributes(setMcpResult({}, poll.result, state.hasher, undefined));
  else if (poll.status === 'failed' || poll.status === 'cancelled') {
    span.setAttributes(setFailure({}, taskFailure(poll.status, poll.error)));
    error = poll.status;
  }
  span.end(error);
}
