// One logical call in the story (docs/span-contract.md, "One logical call"): its legs, its wait for input and its
// task as marks on its row, and the spans of its legs and polls that other processes served, listed inside it.
import type { SpanCall } from '@toolscope/collector/schemas';
import { href } from '../route';
import type { StoryRow } from '../story-model';
import { formatMs } from '../time';
import { Code, counted, short } from '../ui';

/** The marks of a call's legs, its wait for input, its task, and a call whose parts show no final result. */
export function LogicalMarks({ call: c }: { call: SpanCall }) {
  return (
    <>
      {c.legs > 1 && <span class="mark">{c.legs} legs</span>}
      {c.inputWaitMs > 0 && (
        <span class="mark" data-testid="input-wait">
          waited {formatMs(c.inputWaitMs)} for input
        </span>
      )}
      {c.task && <span class="mark">{taskLine(c.task)}</span>}
      {!c.complete && (
        <span class="mark warn" title={INCOMPLETE}>
          no final result stored
        </span>
      )}
    </>
  );
}

const INCOMPLETE =
  'The call awaits its next leg, resumes a leg not stored, or is a task whose last status is not final.';

/** A task in one line: its polls, the interval the server asked for, its last status. */
export function taskLine(t: NonNullable<SpanCall['task']>): string {
  const every = t.pollIntervalMs === null ? '' : ` (asked every ${formatMs(t.pollIntervalMs)})`;
  return `task: ${t.polls} poll${t.polls === 1 ? '' : 's'}${every}, ${t.status ?? 'status unknown'}`;
}

/** What one part of a logical call was: a `tasks/get` poll, or a leg of the call. */
const partName = (p: StoryRow['parts'][number]) => (p.call.tool === '' ? 'poll' : 'leg');

/** The spans of a call that other processes saw a part of, each with where it ran and how it ended. */
export function Parts({ row }: { row: StoryRow }) {
  if (row.parts.length === 0) return null;
  return (
    <div class="parts">
      <p>
        Joined from {counted(row.parts.length + 1, 'span')}: the legs and polls other processes
        served are one call.
      </p>
      <ol aria-label="parts of this call">
        {row.parts.map((p) => (
          <li key={p.span.spanId}>
            {partName(p)}{' '}
            <a href={href.trace(p.span.traceId, p.span.spanId)}>{short(p.span.spanId)}</a>{' '}
            <span class="muted">
              {p.span.service ?? ''} · {formatMs(p.span.durationMs)}
              {p.call.task?.status ? ` · ${p.call.task.status}` : ''}
            </span>{' '}
            <Code code={p.call.code} />
          </li>
        ))}
      </ol>
    </div>
  );
}
