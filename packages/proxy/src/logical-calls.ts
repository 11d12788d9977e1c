// One logical call across requests in the proxy (decision 0046): a `tools/call` whose answer leaves it open
// (`input_required`, or a task) keeps its span, parked for the whole proxy process (a 2026-07-28 client's legs and
// polls may come on other connections, each its own observer), until the leg that echoes its `requestState`
// arrives or a poll of its task says it is over. What the proxy never sees the end of ends as a part of its call,
// with the linking hashes the collector joins parts by; so does a poll of a task it never saw created.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  fingerprint,
  type Hasher,
  isTerminal,
  newLogicalCall,
  nextLeg,
  Parked,
  pollOf,
  setFailure,
  setLogical,
  setMcpResult,
  taskFailure,
  taskPolled,
  type Unfinished,
  waitForInput,
} from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import { endAsPart, endWithFailure, endWithResult } from './call-end.js';
import type { CallContext, OpenCall } from './call-span.js';
import type { ParentRef } from './otlp/proxy-span.js';
import type { ProxyTracer } from './otlp/proxy-tracer.js';
import { nowNs } from './otlp/trace-context.js';

/** A leg's wait for the client is human-paced (the MCP SDK's own shim allows 10 minutes a round). */
const INPUT_IDLE_MS = 600_000;
/** A task unpolled this long (or ten of its poll intervals, if longer) is polled elsewhere, or abandoned. */
const TASK_IDLE_MS = 600_000;
const MAX_PARKED = 10_000;

const legKey = (tool: string, inputHash: string, parentSpanId: string, stateHash: string) =>
  `leg\n${tool}\n${inputHash}\n${parentSpanId}\n${stateHash}`;
const taskKey = (taskId: string) => `task\n${taskId}`;
const taskIdle = (interval: number | undefined) => Math.max(TASK_IDLE_MS, 10 * (interval ?? 0));

/** The calls of one proxy process that wait for a later leg or a poll. */
export class LogicalCalls {
  readonly #hasher: Hasher;
  readonly #parked = new Parked<OpenCall>({ max: MAX_PARKED, onEnd: endAsPart });

  constructor(hasher: Hasher) {
    this.#hasher = hasher;
  }

  /** Calls parked now. */
  get size(): number {
    return this.#parked.size;
  }

  /**
   * The parked call a later leg continues (same tool, input, client span and `requestState`), the leg counted; or,
   * for a leg of a call the proxy never saw begin, the hash its span `resumes`.
   */
  resume(
    tool: string,
    args: unknown,
    parentSpanId: string,
    requestState: string,
  ): { call: OpenCall | undefined; stateHash: string } {
    const stateHash = this.#hasher(requestState);
    const inputHash = fingerprint(args ?? {}, this.#hasher).hash;
    const call = this.#parked.take(legKey(tool, inputHash, parentSpanId, stateHash));
    if (call?.logical) nextLeg(call.logical, performance.now());
    return { call, stateHash };
  }

  /** Keeps a call whose answer left it open, until its next leg or its task's last poll. */
  park(call: OpenCall, open: Unfinished): void {
    call.logical ??= newLogicalCall();
    const logical = call.logical;
    call.lastSeenNs = nowNs();
    if (open.kind === 'input_required') {
      const stateHash = this.#hasher(open.requestState);
      waitForInput(logical, stateHash, performance.now());
      const key = legKey(call.tool, call.inputHash, call.parentSpanId, stateHash);
      this.#parked.park(key, call, INPUT_IDLE_MS);
      return;
    }
    logical.task = {
      idHash: this.#hasher(open.taskId),
      polls: 0,
      pollIntervalMs: open.pollIntervalMs,
      status: open.status,
    };
    this.#parked.park(taskKey(open.taskId), call, taskIdle(open.pollIntervalMs));
  }

  /**
   * A `tasks/get` answer (or 2025-11-25's `tasks/result`, whose answer is the call's result): a poll of the call
   * parked for the task, ending it when the task is over; for a task the proxy never saw created, a part of its call.
   */
  answered(
    method: string,
    taskId: string,
    answer: unknown,
    c: CallContext,
    tracer: ProxyTracer,
    parent: ParentRef | undefined,
  ): void {
    if (method === sc.MCP_METHOD_TASKS_RESULT) {
      const call = this.#parked.take(taskKey(taskId));
      if (call) endWithResult(call, c, answer, undefined);
      return;
    }
    const poll = pollOf(answer);
    if (!poll) return;
    // A 2025-11-25 task says `completed` first and hands its result to `tasks/result`: the call ends there.
    const over =
      isTerminal(poll.status) && (poll.status !== 'completed' || poll.result !== undefined);
    const key = taskKey(taskId);
    const call = over
      ? this.#parked.take(key)
      : this.#parked.touch(key, taskIdle(poll.pollIntervalMs));
    if (!call?.logical) {
      this.#pollPart(taskId, poll, c, tracer, parent);
      return;
    }
    taskPolled(call.logical, poll.status, poll.pollIntervalMs, performance.now());
    call.lastSeenNs = nowNs();
    if (!over) return;
    if (poll.status === 'completed') endWithResult(call, c, poll.result, undefined);
    else if (poll.status === 'failed' || poll.status === 'cancelled')
      endWithFailure(call, taskFailure(poll.status, poll.error), poll.status);
  }

  /** A poll of a task whose call began elsewhere: a `tasks/get` span the collector joins by the task's hash. */
  #pollPart(
    taskId: string,
    poll: NonNullable<ReturnType<typeof pollOf>>,
    c: CallContext,
    tracer: ProxyTracer,
    parent: ParentRef | undefined,
  ): void {
    const logical = newLogicalCall();
    logical.task = {
      idHash: this.#hasher(taskId),
      polls: 0,
      pollIntervalMs: poll.pollIntervalMs,
      status: poll.status,
    };
    taskPolled(logical, poll.status, poll.pollIntervalMs, performance.now());
    const a = setLogical({ [sc.ATTR_MCP_METHOD_NAME]: sc.MCP_METHOD_TASKS_GET }, logical);
    a[sc.ATTR_TOOLSCOPE_PROXY] = true;
    const failed = poll.status === 'failed' || poll.status === 'cancelled';
    if (poll.status === 'completed' && poll.result !== undefined)
      setMcpResult(a, poll.result, c.hasher, undefined);
    else if (poll.status === 'failed' || poll.status === 'cancelled')
      setFailure(a, taskFailure(poll.status, poll.error));
    const span = tracer.start(sc.MCP_METHOD_TASKS_GET, SpanKind.SERVER, a, parent, undefined, true);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: poll.status });
    span.end();
  }

  /** Ends every parked call as a part of its call (the proxy stops). */
  endAll(): void {
    this.#parked.endAll('stopped');
  }
}
