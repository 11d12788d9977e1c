// The trace and conversation timeline: every span in time order with tool calls emphasised, each call's
// contract facts, and a plain-language sequence of what the agent tried and what it was told.
import {
  conversationResponseSchema,
  flagsResponseSchema,
  type SpanOut,
  traceResponseSchema,
} from '@toolscope/collector/schemas';
import { useEffect, useMemo } from 'preact/hooks';
import { useApi } from '../hooks';
import { href } from '../route';
import { depths, KIND_NAMES, valueText } from '../span-model';
import { modelSteps, storyRows } from '../story-model';
import { formatMs } from '../time';
import { counted, Load, Mono, Section, short, Time } from '../ui';
import { Attributes, CallCard } from './call-card';
import { TraceFixtures } from './fixture-download';
import { ModelFacts } from './model-step';
import { Story } from './story';

function Timeline({ spans, selected }: { spans: SpanOut[]; selected?: string | undefined }) {
  const depth = useMemo(() => depths(spans), [spans]);
  const start = spans.reduce(
    (m, s) => (BigInt(s.startTimeUnixNano) < m ? BigInt(s.startTimeUnixNano) : m),
    spans[0] ? BigInt(spans[0].startTimeUnixNano) : 0n,
  );
  const end = spans.reduce(
    (m, s) => (BigInt(s.endTimeUnixNano) > m ? BigInt(s.endTimeUnixNano) : m),
    start + 1n,
  );
  const total = Number(end - start);
  useEffect(() => {
    if (!selected) return;
    document.getElementById(`span-${selected}`)?.scrollIntoView({ block: 'center' });
  }, [selected, spans]);
  return (
    <ol class="timeline" aria-label="spans in time order">
      {spans.map((s) => {
        const call = s.call;
        const left = (Number(BigInt(s.startTimeUnixNano) - start) / total) * 100;
        const width = Math.max(
          0.3,
          (Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / total) * 100,
        );
        const service = s.service ?? '';
        return (
          <li
            key={`${s.traceId}|${s.spanId}`}
            id={`span-${s.spanId}`}
            class={`span ${call ? 'tool-span' : ''} ${s.status.code === 2 || call?.code ? 'err' : ''} ${selected === s.spanId ? 'selected' : ''}`}
          >
            <div class="span-row">
              <div
                class="span-name"
                style={{ paddingLeft: `${(depth.get(s.spanId) ?? 0) * 14}px` }}
              >
                <span class="name">{s.name}</span>
                <span class="muted">
                  {' '}
                  {KIND_NAMES[s.kind] ?? s.kind} · {service}
                </span>
              </div>
              <div class="span-bar-track" aria-hidden="true">
                <span
                  class="span-bar"
                  style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                />
              </div>
              <div class="span-dur num">{formatMs(s.durationMs)}</div>
              <div class="span-time">
                <Time iso={s.startTime} />
              </div>
            </div>
            {call && <CallCard call={call} />}
            {s.modelCall && (
              <p>
                <ModelFacts model={s.modelCall} />
              </p>
            )}
            {s.status.message && !call && <p class="reason">{s.status.message}</p>}
            <Attributes attrs={s.attributes} label="Attributes" />
            <Attributes attrs={s.resource} label="Resource" />
            {s.events.length > 0 && (
              <details>
                <summary>Events ({s.events.length})</summary>
                <ul>
                  {s.events.map((e) => (
                    <li key={`${e.timeUnixNano}|${e.name}`}>
                      <span class="name">{e.name}</span>{' '}
                      <span class="muted">{valueText(e.attributes)}</span>
                    </li>
                  ))}
                </ul>
              </details>
            )}
            {s.links.length > 0 && (
              <p class="muted">
                linked to{' '}
                {s.links.map((l) => (
                  <a key={`${l.traceId}|${l.spanId}`} href={href.trace(l.traceId, l.spanId)}>
                    {short(l.traceId)}{' '}
                  </a>
                ))}
              </p>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** The story of these spans with the flags that touch them, asked for over the spans' own time (±1 h). */
function StoryWithFlags({
  spans,
  conversationId,
  tick,
}: {
  spans: SpanOut[];
  conversationId: string | null;
  tick: number;
}) {
  const rows = useMemo(() => storyRows(spans), [spans]);
  const steps = useMemo(() => modelSteps(spans), [spans]);
  const first = rows[0];
  const last = rows.at(-1);
  const window =
    first && last
      ? `?since=${Number(first.startNs / 1_000_000n) - HOUR_MS}&until=${Number(last.endNs / 1_000_000n) + HOUR_MS}`
      : null;
  const flags = useApi(window && `/api/flags${window}`, flagsResponseSchema, tick);
  // The story shows at once; its flags pin above it when they arrive.
  return (
    <Story
      rows={rows}
      steps={steps}
      flags={flags.state === 'ready' ? flags.data.flags : []}
      conversationId={conversationId}
    />
  );
}

const HOUR_MS = 3_600_000;

/**
 * The tools of a trace's calls, each call counted once (a client span whose server span is known, and a part of
 * another span's call, are left out; so is a poll whose call is not stored, which names no tool).
 */
const calledTools = (spans: SpanOut[]) =>
  [
    ...new Set(
      spans.flatMap((s) =>
        s.call && !s.call.paired && !s.call.joinedTo && s.call.tool ? [s.call.tool] : [],
      ),
    ),
  ].sort();

export function TraceView({
  traceId,
  spanId,
  tick,
}: {
  traceId: string;
  spanId?: string | undefined;
  tick: number;
}) {
  const trace = useApi(`/api/traces/${encodeURIComponent(traceId)}`, traceResponseSchema, tick);
  return (
    <>
      <h1 class="title">
        Trace <Mono>{traceId}</Mono>
      </h1>
      <Load loaded={trace} what="the trace">
        {(t) => {
          const conv = t.spans.map((s) => s.call?.conversationId).find((c) => !!c);
          return (
            <>
              {conv && (
                <p>
                  Part of <a href={href.conversation(conv)}>conversation {conv}</a>
                </p>
              )}
              <TraceFixtures traceId={traceId} tools={calledTools(t.spans)} />
              <Section title="What the agent tried and what it was told">
                <StoryWithFlags spans={t.spans} conversationId={null} tick={tick} />
              </Section>
              <Section title={`Timeline (${counted(t.spans.length, 'span')})`}>
                <Timeline spans={t.spans} selected={spanId} />
              </Section>
            </>
          );
        }}
      </Load>
    </>
  );
}

export function ConversationView({ id, tick }: { id: string; tick: number }) {
  const conv = useApi(
    `/api/conversations/${encodeURIComponent(id)}`,
    conversationResponseSchema,
    tick,
  );
  return (
    <>
      <h1 class="title">
        Conversation <Mono>{id}</Mono>
      </h1>
      <Load loaded={conv} what="the conversation">
        {(c) => (
          <>
            <p>
              {counted(c.traceIds.length, 'trace')}:{' '}
              {c.traceIds.map((t) => (
                <a key={t} class="chip" href={href.trace(t)}>
                  {short(t)}
                </a>
              ))}
            </p>
            <Section title="What the agent tried and what it was told">
              <StoryWithFlags spans={c.spans} conversationId={id} tick={tick} />
            </Section>
            <Section title="Spans">
              {/* The raw spans stay one click away: the story above is what a reader needs first. */}
              <details class="all-spans">
                <summary>All {c.spans.length} spans in time order</summary>
                <Timeline spans={c.spans} />
              </details>
            </Section>
          </>
        )}
      </Load>
    </>
  );
}
