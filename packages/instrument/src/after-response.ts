// Work a span still needs once the response has gone back (measuring and hashing the result, then ending the
// span): queued and run together in the next turn of the event loop, after the transport has written the
// response. Every span is still complete when it ends; it ends with the time the response was ready.
import { diag } from '@opentelemetry/api';

type Task<T> = (arg: T) => void;

const tasks: Task<never>[] = [];
const args: unknown[] = [];
let scheduled = false;
let warned = false;

function drain(): void {
  scheduled = false;
  // Tasks queued while draining (none are expected) run in this pass too.
  for (let i = 0; i < tasks.length; i++) {
    try {
      (tasks[i] as Task<unknown>)(args[i]);
    } catch (error) {
      // Telemetry never breaks the tool: a failing task costs its span's end attributes, nothing else.
      if (!warned) {
        warned = true;
        diag.error(
          `@toolscope/instrument: finishing a span failed (${error instanceof Error ? error.message : 'unknown error'})`,
        );
      }
    }
  }
  tasks.length = 0;
  args.length = 0;
}

/**
 * Finishes every answered call's span now instead of in the next turn: for a flush or shutdown that must include
 * them (setupToolscope's `forceFlush` and `shutdown` call it first).
 */
export function finishAnswered(): void {
  if (tasks.length > 0) drain();
}

/** Runs `task(arg)` after the current response has been handed to the transport (one `setImmediate` per batch). */
export function afterResponse<T>(task: Task<T>, arg: T): void {
  tasks.push(task as Task<never>);
  args.push(arg);
  if (!scheduled) {
    scheduled = true;
    setImmediate(drain);
  }
}
