// One logical call (docs/mcp.md, decision 0046): what happened between a tool call's first request and its
// final result, whoever observes it (the MCP server and client adapters, the proxy). The legs of a multi
// round-trip call and the polls of a task are counted here; span-contract.ts turns the record into attributes.
import type { TaskStatus } from './semconv.js';

/** A call that became a task (its creating answer carried a `taskId`). */
export type TaskProgress = {
  /** Keyed hash of the `taskId` (`toolscope.task.id.hash`): the id itself can fetch the task's result. */
  idHash: string;
  /** `tasks/get` answers seen. */
  polls: number;
  /** The server's `pollIntervalMs`, as its answers last gave it. */
  pollIntervalMs: number | undefined;
  /** The status of the last answer seen (the creating answer's, then each poll's). */
  status: TaskStatus;
};

/** What a call went through besides its first request and its final answer. */
export type LogicalCall = {
  /** Rounds: 1, plus one per round of input the call asked for. */
  legs: number;
  /** Milliseconds spent waiting for input, over every round that has ended. */
  inputWaitMs: number;
  /** `performance.now()` since the call waits for input (an `input_required` answer went back); else undefined. */
  waitingSince: number | undefined;
  /** Keyed hash of the `requestState` the part's first request echoed: it continues a call begun unseen. */
  resumes: string | undefined;
  /** Keyed hash of the `requestState` the call's last answer gave, while it waits for the next leg. */
  awaits: string | undefined;
  task: TaskProgress | undefined;
};

/** The record of a call that has had nothing but its first request yet. */
export function newLogicalCall(): LogicalCall {
  return {
    legs: 1,
    inputWaitMs: 0,
    waitingSince: undefined,
    resumes: undefined,
    awaits: undefined,
    task: undefined,
  };
}

/** An `input_required` answer went back at `now`, asking the client to echo `stateHash`. */
export function waitForInput(call: LogicalCall, stateHash: string, now: number): void {
  call.awaits = stateHash;
  call.waitingSince = now;
}

/** The next leg arrived at `now`: one more round, and the wait for it counted. */
export function nextLeg(call: LogicalCall, now: number): void {
  call.legs++;
  if (call.waitingSince !== undefined) call.inputWaitMs += Math.max(0, now - call.waitingSince);
  call.waitingSince = undefined;
  call.awaits = undefined;
}

/** A round of input inside one request (a 2025 connection): `ms` spent waiting for the client's answer. */
export function inputRound(call: LogicalCall, ms: number): void {
  call.legs++;
  call.inputWaitMs += Math.max(0, ms);
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Whether a task status is final. */
export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

/**
 * A poll's answer at `now`: one more poll, the status it gave, and the time the task spent asking for input (from
 * the first answer that said `input_required` to the first that did not) counted as input wait.
 */
export function taskPolled(
  call: LogicalCall,
  status: TaskStatus,
  pollIntervalMs: number | undefined,
  now: number,
): void {
  const task = call.task;
  if (!task) return;
  task.polls++;
  if (pollIntervalMs !== undefined) task.pollIntervalMs = pollIntervalMs;
  taskStatus(call, status, now);
}

/** The task's status as an answer gave it at `now` (input wait as in `taskPolled`). */
export function taskStatus(call: LogicalCall, status: TaskStatus, now: number): void {
  const task = call.task;
  if (!task) return;
  if (status === 'input_required' && task.status !== 'input_required') {
    call.waitingSince = now;
  } else if (status !== 'input_required' && task.status === 'input_required') {
    if (call.waitingSince !== undefined) call.inputWaitMs += Math.max(0, now - call.waitingSince);
    call.waitingSince = undefined;
    call.legs++;
  }
  task.status = status;
}
