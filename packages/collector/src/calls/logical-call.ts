// One logical call (docs/span-contract.md, "One logical call"; decision 0046) as the call model reads it: what a
// call went through between its first request and its final result (legs, the wait for input, a task's polls),
// and the hashes that link the parts of a call no one process saw whole. Read from a span's attributes at intake
// and kept with the stored call, as JSON in one column (null for the common call, which has none of it).
import * as sc from '@toolscope/instrument/semconv';
import { z } from 'zod';
import type { Attributes } from './dialects.js';

/** A call that became a task: its polls, the server's poll interval and the last status seen. */
export type TaskFacts = {
  polls: number;
  pollIntervalMs: number | null;
  status: string | null;
  /** Keyed hash of the `taskId` (`toolscope.task.id.hash`): every part of the task carries it. */
  idHash: string | null;
};

export type LogicalCall = {
  /** Rounds: 1 plus one per round of input. A `tasks/get` part counts only the rounds it adds (usually 0). */
  legs: number;
  /** Milliseconds spent waiting for input, over the rounds that ended. */
  inputWaitMs: number;
  task: TaskFacts | null;
  /** Hash of the `requestState` the call ended waiting on: its next leg has not been joined. */
  awaits: string | null;
  /** Hash of the `requestState` its first request echoed: the leg before it has not been joined. */
  resumes: string | null;
  /** Spans joined into this call (1: the span alone). */
  parts: number;
  /** When the part whose outcome the call has (its last) started. */
  lastStartNs: bigint;
  /**
   * On a part joined into another row's call: the span holding that call when this part was joined, in any
   * trace (its holder may since have become a part of an earlier one: follow it). Null on every other row.
   */
  joinedTo: SpanRef | null;
};

/** A span, by its trace and span ids. */
export type SpanRef = { traceId: string; spanId: string };

/** Statuses after which a task gives no more answers. */
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The tool of a `tasks/get` part: its call's tool is unknown until the part is joined to the call. */
export const POLL_PART_TOOL = '';

const count = (v: unknown): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
const ms = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
const hash = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= 64 ? v : null;
const status = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= 32 ? v : null;

/**
 * Whether a span is a poll a process served for a task it did not see created: a `tasks/get` span with the
 * task's hash and no tool (span-contract.md). Its call is the one whose span has the same task hash.
 */
export function isPollPart(a: Attributes): boolean {
  return (
    a[sc.ATTR_MCP_METHOD_NAME] === sc.MCP_METHOD_TASKS_GET &&
    hash(a[sc.ATTR_TOOLSCOPE_TASK_ID_HASH]) !== null &&
    a[sc.ATTR_GEN_AI_TOOL_NAME] === undefined
  );
}

/**
 * What a span says of its logical call, or null when it says nothing (one leg, no task, no part of another call:
 * the common call allocates nothing). A value that is not what the contract says (a negative count, a string
 * for a number) is read as absent.
 */
export function logicalOf(a: Attributes, startNs: bigint, pollPart: boolean): LogicalCall | null {
  const legs = count(a[sc.ATTR_TOOLSCOPE_CALL_LEGS]);
  const wait = ms(a[sc.ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS]);
  const polls = count(a[sc.ATTR_TOOLSCOPE_TASK_POLLS]);
  const interval = ms(a[sc.ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS]);
  const taskStatus = status(a[sc.ATTR_TOOLSCOPE_TASK_STATUS]);
  const idHash = hash(a[sc.ATTR_TOOLSCOPE_TASK_ID_HASH]);
  const awaits = hash(a[sc.ATTR_TOOLSCOPE_CALL_AWAITS]);
  const resumes = hash(a[sc.ATTR_TOOLSCOPE_CALL_RESUMES]);
  const isTask = polls !== null || interval !== null || taskStatus !== null || idHash !== null;
  if (legs === null && wait === null && !isTask && awaits === null && resumes === null) return null;
  const rounds = Math.max(1, legs ?? 1);
  return {
    // A poll part is no request of the call's own: only a round of input the task asked for adds a leg.
    legs: pollPart ? rounds - 1 : rounds,
    inputWaitMs: wait ?? 0,
    task: isTask
      ? { polls: polls ?? 0, pollIntervalMs: interval, status: taskStatus, idHash }
      : null,
    awaits,
    resumes,
    parts: 1,
    lastStartNs: startNs,
    joinedTo: null,
  };
}

/** Whether a span's part ended its call: it awaits no leg, and it is no task or its task's status is terminal. */
export function endsCall(l: LogicalCall | null): boolean {
  if (l === null) return true;
  if (l.awaits !== null) return false;
  return l.task === null || (l.task.status !== null && TERMINAL.has(l.task.status));
}

/**
 * Whether the call reached its final result as far as its parts show: not while it awaits a leg, resumes a leg
 * not joined, or is a task whose last status is not terminal.
 */
export function isComplete(l: LogicalCall | null): boolean {
  return endsCall(l) && (l === null || l.resumes === null);
}

/** The stored form (a JSON column): bigints as decimal strings. */
const storedSchema = z.object({
  legs: z.number().int().nonnegative(),
  inputWaitMs: z.number().nonnegative(),
  task: z
    .object({
      polls: z.number().int().nonnegative(),
      pollIntervalMs: z.number().nonnegative().nullable(),
      status: z.string().nullable(),
      idHash: z.string().nullable(),
    })
    .nullable(),
  awaits: z.string().nullable(),
  resumes: z.string().nullable(),
  parts: z.number().int().positive(),
  lastStartNs: z.string().regex(/^\d+$/),
  // Since parts of a call are joined across traces (decision 0054); rows before have none.
  joinedTo: z.object({ traceId: z.string(), spanId: z.string() }).nullable().default(null),
});

/** The column value of a call's logical facts (null for none). */
export function logicalJson(l: LogicalCall | null): string | null {
  return l === null ? null : JSON.stringify({ ...l, lastStartNs: String(l.lastStartNs) });
}

/**
 * A stored column value back as facts. A value that does not parse (a damaged row) reads as none, which counts
 * the row as the whole call it was stored as.
 */
export function logicalFromJson(v: unknown): LogicalCall | null {
  if (typeof v !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    return null;
  }
  const r = storedSchema.safeParse(parsed);
  return r.success ? { ...r.data, lastStartNs: BigInt(r.data.lastStartNs) } : null;
}
