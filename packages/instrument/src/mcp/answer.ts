// What an MCP answer says about the call it belongs to (docs/mcp.md): final, waiting for input (a multi
// round-trip call's `input_required`), or a task to poll; and what a task's poll says. Read alike by the server
// and client adapters and the proxy, from the 2026-07-28 shapes (`resultType`) and the 2025-11-25 task shape.
import { TASK_STATUSES, type TaskStatus } from '../semconv.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An answer that is not the call's last: the client sends the call again, or polls the task. */
export type Unfinished =
  | { kind: 'input_required'; requestState: string }
  | {
      kind: 'task';
      taskId: string;
      status: TaskStatus;
      pollIntervalMs: number | undefined;
      ttlMs: number | undefined;
    };

const STATUS: ReadonlySet<string> = new Set(TASK_STATUSES);

/** A task status, or undefined for anything else. */
export function taskStatusOf(value: unknown): TaskStatus | undefined {
  return typeof value === 'string' && STATUS.has(value) ? (value as TaskStatus) : undefined;
}

const ms = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

const MAX_ID = 256;

/**
 * What a `tools/call` answer leaves open: undefined for a final result (the common case, one property read), the
 * `requestState` to echo for `input_required` (empty when the answer has none), the task for a task.
 */
export function unfinishedOf(result: unknown): Unfinished | undefined {
  if (!isRecord(result)) return undefined;
  const type = result.resultType;
  if (type === undefined) {
    // 2025-11-25: a CreateTaskResult nests the task, with `ttl` and `pollInterval`.
    const task = result.task;
    return isRecord(task) ? taskOf(task, task.pollInterval, task.ttl) : undefined;
  }
  if (type === 'input_required') {
    const state = result.requestState;
    return { kind: 'input_required', requestState: typeof state === 'string' ? state : '' };
  }
  if (type === 'task') return taskOf(result, result.pollIntervalMs, result.ttlMs);
  return undefined;
}

function taskOf(t: Record<string, unknown>, poll: unknown, ttl: unknown): Unfinished | undefined {
  const id = t.taskId;
  if (typeof id !== 'string' || id === '' || id.length > MAX_ID) return undefined;
  return {
    kind: 'task',
    taskId: id,
    status: taskStatusOf(t.status) ?? 'working',
    pollIntervalMs: ms(poll),
    ttlMs: ms(ttl),
  };
}

/** A `tasks/get` answer: the task's status, and with a terminal one what the call ended with. */
export type Poll = {
  status: TaskStatus;
  pollIntervalMs: number | undefined;
  /** `completed`: the call's result (2026-07-28 carries it in the answer). */
  result: unknown;
  /** `failed`: the JSON-RPC error the task ended with. */
  error: { code: number; message: string } | undefined;
};

/** What a `tasks/get` answer says; undefined when it names no status. */
export function pollOf(answer: unknown): Poll | undefined {
  if (!isRecord(answer)) return undefined;
  const status = taskStatusOf(answer.status);
  if (!status) return undefined;
  const error = answer.error;
  return {
    status,
    pollIntervalMs: ms(answer.pollIntervalMs) ?? ms(answer.pollInterval),
    result: answer.result,
    error:
      isRecord(error) && typeof error.code === 'number'
        ? { code: error.code, message: typeof error.message === 'string' ? error.message : '' }
        : undefined,
  };
}

/** The `taskId` a `tasks/*` request names, or undefined. */
export function taskIdOf(params: unknown): string | undefined {
  const id = isRecord(params) ? params.taskId : undefined;
  return typeof id === 'string' && id !== '' && id.length <= MAX_ID ? id : undefined;
}

/** The `requestState` a `tools/call` request echoes (a later leg of a multi round-trip call), or undefined. */
export function echoedStateOf(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const state = params.requestState;
  if (typeof state === 'string') return state;
  // A leg that answers only `inputResponses` (the answer that asked carried no state).
  return params.inputResponses !== undefined ? '' : undefined;
}
