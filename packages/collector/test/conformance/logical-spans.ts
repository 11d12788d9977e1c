// The spans of logical calls' parts as the adapters and the proxy write them (docs/span-contract.md, "One logical
// call"), for the conformance files that join them: legs with their links, a task's creating call and polls.
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { type CallSpec, callSpan } from './spans.js';

export const CLIENT = 3;
export const SERVER = 2;
export const STATE = '5a5a5a5a5a5a5a5a';
export const TASK = '7a7a7a7a7a7a7a7a';
export const INPUT = 'abcdabcdabcdabcd';
/** Minutes ago: whole minutes of rollups lie around the calls, and a narrow range reads raw rows only. */
export const AGO = 3 * 60_000;

/** A server part of `book`: a call span with the linking attributes the adapters write. */
export function leg(spec: CallSpec, attributes: NormalizedSpan['attributes']): NormalizedSpan {
  const s = callSpan({ tool: 'book', input: INPUT, kind: SERVER, agoMs: AGO, ...spec });
  return { ...s, attributes: { ...s.attributes, ...attributes } };
}

/** A `tasks/get` part: no tool, its task's hash, one poll and its status (and the result on the last). */
export function poll(
  trace: number,
  span: number,
  atMs: number,
  status: string,
  task = TASK,
  fast = false,
) {
  const s = callSpan({ trace, span, kind: SERVER, agoMs: AGO - atMs, durationMs: 1 });
  const attributes: NormalizedSpan['attributes'] = {
    'mcp.method.name': 'tasks/get',
    'toolscope.task.id.hash': task,
    'toolscope.task.polls': 1,
    'toolscope.task.poll_interval_ms': fast ? 1000 : 25,
    'toolscope.task.status': status,
  };
  if (status === 'completed') attributes['toolscope.output.hash'] = 'eeeeeeeeeeeeeeee';
  if (status === 'failed') {
    attributes['error.type'] = '-32603';
    return { ...s, name: 'tasks/get', attributes, statusCode: 2 };
  }
  return { ...s, name: 'tasks/get', attributes };
}

/** The creating call of a task: it ended as a part, polled `polls` times here, its status `status`. */
export const creating = (trace: number, span: number, tool = 'report', task = TASK) =>
  leg(
    { trace, span, tool, durationMs: 2 },
    {
      'toolscope.task.id.hash': task,
      'toolscope.task.polls': 0,
      'toolscope.task.poll_interval_ms': 25,
      'toolscope.task.status': 'working',
    },
  );
