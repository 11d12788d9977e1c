// The readable sequence of a failed decision: one row per tool call the agent made, in order, the client's
// and the server's span of a call merged (story-model.ts), and the model's steps between them. Each row says
// in one or two lines what was sent and what the tool answered; its facts, payloads and both spans open on
// demand. Flags that touch these calls are pinned above with links to their rows, and a compact timeline puts
// every call on one time axis.
import type { Flag, SpanCall } from '@toolscope/collector/schemas';
import { useRef } from 'preact/hooks';
import { whyNotRetry } from '../retry-advice';
import { href } from '../route';
import {
  cycleRounds,
  type ModelStep,
  pinnedFlags,
  type StoryRow,
  storyItems,
} from '../story-model';
import { formatMs } from '../time';
import { Code, counted, Mono, short, versionLabel } from '../ui';
import { CallCard } from './call-card';
import { kindTitle, WastedChip } from './flags';
import { LogicalMarks, Parts } from './logical-call';
import { ModelFacts } from './model-step';
import { StoryTimeline } from './story-timeline';

/** What the tool answered, in one line. */
function answer(call: SpanCall): string {
  if (!call.code) return call.replay ? 'answered from the idempotency store (replay)' : 'succeeded';
  const first = call.issues
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
  const more = call.issues.length > 3 ? ` (+${call.issues.length - 3} more)` : '';
  const threw = call.exceptionType
    ? `threw ${call.exceptionType}${call.exceptionMessage ? `: ${call.exceptionMessage}` : ''}`
    : null;
  return first ? `${first}${more}` : (threw ?? call.reason ?? 'failed');
}

/** Moves focus to a row's summary (flags, timeline bars and the keyboard all use it). */
export function focusRow(list: HTMLElement | null, n: number): void {
  const summary = list?.querySelector<HTMLElement>(`li[data-n="${n}"] > details > summary`);
  if (!summary) return;
  summary.focus();
  summary.scrollIntoView({ block: 'nearest' });
}

const KEYS: Record<string, 1 | -1 | 'first' | 'last'> = {
  ArrowDown: 1,
  j: 1,
  ArrowUp: -1,
  k: -1,
  Home: 'first',
  End: 'last',
};

function Marks({ row, round }: { row: StoryRow; round: string | undefined }) {
  const c = row.call;
  return (
    <>
      {round && <span class="mark bad">cycle {round}</span>}
      {c.attempt !== null && c.attempt > 1 && <span class="mark">attempt {c.attempt}</span>}
      {row.repeatOf !== null && <span class="mark bad">same input as #{row.repeatOf}</span>}
      {c.code && c.retryable !== null && (
        // The code is the cause's class; `retryable` is the executor's policy for this call: said apart, so
        // that "RETRYABLE, not retryable" (a write that timed out without an idempotency key) is no typo.
        <span class={`mark ${c.retryable ? '' : 'bad'}`} title={whyNotRetry(c) ?? undefined}>
          {c.retryable ? 'retry allowed' : 'do not retry as is'}
        </span>
      )}
      {c.partialEffect && <span class="mark bad">effect may have happened</span>}
      {c.replay && <span class="mark">replay</span>}
      <LogicalMarks call={c} />
      {row.disagreements.length > 0 && <span class="mark warn">client and server disagree</span>}
    </>
  );
}

function Row({ row, t0, round }: { row: StoryRow; t0: bigint; round?: string | undefined }) {
  const c = row.call;
  const version = versionLabel(c.version);
  // Every row has at least one side (story-model.ts builds rows from spans).
  const main = row.server ?? row.client;
  if (!main) return null;
  const sides = [row.client && 'client', row.proxy && 'proxy', row.server && 'server']
    .filter(Boolean)
    .join(' + ');
  return (
    <li data-n={row.n} data-sides={sides} class={c.code ? 'step-err' : 'step-ok'}>
      <details>
        <summary>
          <span class="step-n">#{row.n}</span>{' '}
          <span class="muted num">
            {row.startNs <= t0 ? '0' : `+${formatMs(Number(row.startNs - t0) / 1e6)}`}
          </span>{' '}
          <b class="tool">{c.tool || 'tasks/get (a poll of a call not in these spans)'}</b>{' '}
          {version && <span class="muted">{version}</span>}{' '}
          {c.inputShape && <Mono>{c.inputShape}</Mono>} <Code code={c.code} />{' '}
          <span class="muted num" title={`${sides} span${row.client && row.server ? 's' : ''}`}>
            {formatMs(row.durationMs)}
          </span>
          <Marks row={row} round={round} />
          {c.code && <span class="step-answer">{answer(c)}</span>}
        </summary>
        <div class="step-body">
          {row.disagreements.length > 0 && (
            <ul class="disagree" aria-label="where client and server disagree">
              {row.disagreements.map((d) => (
                <li key={d.field}>
                  {d.field}: the server said <Mono>{d.server}</Mono>, the client saw{' '}
                  <Mono>{d.client}</Mono>
                </li>
              ))}
            </ul>
          )}
          <CallCard call={c} />
          <Parts row={row} />
          <p class="muted">
            {sides} span{row.client && row.server ? 's' : ''}:{' '}
            {[row.client, row.proxy, row.server].map(
              (side) =>
                side && (
                  <a key={side.span.spanId} href={href.trace(side.span.traceId, side.span.spanId)}>
                    {side.call.proxy ? 'proxy' : side.call.side} {short(side.span.spanId)}{' '}
                  </a>
                ),
            )}
          </p>
        </div>
      </details>
    </li>
  );
}

/** Row links per pinned flag; the rest are counted. */
const PIN_LINKS = 8;

function Pinned({
  pinned,
  list,
}: {
  pinned: { flag: Flag; rows: number[] }[];
  list: () => HTMLElement | null;
}) {
  if (pinned.length === 0) return null;
  return (
    <ul class="pinned" aria-label="flags on this conversation">
      {pinned.map(({ flag, rows }) => (
        // Whole, wrapping: its cost first, then the calls it is about, then its summary on a line of its own.
        <li key={`${flag.kind}|${flag.tool}|${flag.version ?? ''}`} class={`pin ${flag.severity}`}>
          <b>{kindTitle(flag.kind)}</b> <span class="muted">on</span> {flag.tool}{' '}
          {flag.evidence.wasted && <WastedChip wasted={flag.evidence.wasted} />}
          {rows.length > 0 && <span class="muted"> calls</span>}
          {rows.slice(0, PIN_LINKS).map((n) => (
            <button
              key={n}
              type="button"
              class="link"
              aria-label={`go to call #${n}`}
              onClick={() => focusRow(list(), n)}
            >
              #{n}
            </button>
          ))}
          {rows.length > PIN_LINKS && (
            <span class="muted"> and {rows.length - PIN_LINKS} more</span>
          )}
          <span class="muted pin-summary">{flag.summary}</span>
        </li>
      ))}
    </ul>
  );
}

function ModelRow({ step, t0 }: { step: ModelStep; t0: bigint }) {
  return (
    <li class="model-step" data-span={step.spanId}>
      <span class="step-n" aria-hidden="true">
        ·
      </span>{' '}
      <span class="muted num">
        {step.startNs <= t0 ? '0' : `+${formatMs(Number(step.startNs - t0) / 1e6)}`}
      </span>{' '}
      <a href={href.trace(step.traceId, step.spanId)}>
        <ModelFacts model={step.model} durationMs={step.durationMs} />
      </a>
    </li>
  );
}

export function Story({
  rows,
  steps = [],
  flags = [],
  conversationId = null,
}: {
  rows: StoryRow[];
  /** The model's steps (story-model.ts modelSteps), shown between the calls. */
  steps?: readonly ModelStep[];
  flags?: readonly Flag[];
  conversationId?: string | null;
}) {
  const list = useRef<HTMLOListElement>(null);
  const pinned = pinnedFlags(flags, conversationId, rows);
  const rounds = cycleRounds(
    pinned.map((p) => p.flag),
    rows,
  );
  if (rows.length === 0 && steps.length === 0)
    return <p class="state">No tool calls or model steps in these spans.</p>;
  const first = rows[0]?.startNs;
  const firstStep = steps[0]?.startNs;
  const t0 =
    first === undefined
      ? (firstStep ?? 0n)
      : firstStep === undefined || first < firstStep
        ? first
        : firstStep;
  const onKeyDown = (e: KeyboardEvent) => {
    const move = KEYS[e.key];
    const at = (e.target as HTMLElement | null)?.closest<HTMLElement>('li[data-n]');
    if (move === undefined || !at || e.altKey || e.ctrlKey || e.metaKey) return;
    const n = Number(at.dataset.n);
    const to =
      move === 'first'
        ? 1
        : move === 'last'
          ? rows.length
          : Math.min(rows.length, Math.max(1, n + move));
    e.preventDefault();
    focusRow(list.current, to);
  };
  return (
    <>
      <Pinned pinned={pinned} list={() => list.current} />
      {rows.length > 0 && <StoryTimeline rows={rows} onPick={(n) => focusRow(list.current, n)} />}
      <p class="muted hint">
        {counted(rows.length, 'call')}
        {steps.length > 0 ? `, ${counted(steps.length, 'model step')}` : ''}. ↑/↓ or j/k move
        between calls, Enter opens one.
      </p>
      <ol class="story" ref={list} aria-label="tool calls in order" onKeyDown={onKeyDown}>
        {storyItems(rows, steps).map((item) =>
          item.kind === 'call' ? (
            <Row
              key={`${item.row.traceId}|${item.row.spanId}`}
              row={item.row}
              t0={t0}
              round={rounds.get(item.row.n)}
            />
          ) : (
            <ModelRow key={`m|${item.step.traceId}|${item.step.spanId}`} step={item.step} t0={t0} />
          ),
        )}
      </ol>
    </>
  );
}
