// The trace and conversation timeline: every span in time order with tool calls emphasised, each call's
// contract facts, and a plain-language sequence of what the agent tried and what it was told.
import {
  conversationResponseSchema,
  type SpanOut,
  traceResponseSchema,
} from '@toolscope/collector/schemas';
import { useEffect, useMemo } from 'preact/hooks';
import { useApi } from '../hooks';
import { href } from '../route';
import { depths, KIND_NAMES, toolCallOf, valueText } from '../span-model';
import { formatMs } from '../time';
import { Load, Mono, Section, short, Time } from '../ui';
import { Attributes, CallCard } from './call-card';
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
        const call = toolCallOf(s);
        const left = (Number(BigInt(s.startTimeUnixNano) - start) / total) * 100;
        const width = Math.max(
          0.3,
          (Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / total) * 100,
        );
        const service = valueText(s.resource['service.name'] ?? '');
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
            {call && <CallCard call={call} span={s} />}
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
          const conv = t.spans
            .map((s) => s.attributes['gen_ai.conversation.id'])
            .find((c): c is string => typeof c === 'string');
          return (
            <>
              {conv && (
                <p>
                  Part of <a href={href.conversation(conv)}>conversation {conv}</a>
                </p>
              )}
              <Section title="What the agent tried and what it was told">
                <Story spans={t.spans} />
              </Section>
              <Section title={`Timeline (${t.spans.length} spans)`}>
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
              {c.traceIds.length} traces:{' '}
              {c.traceIds.map((t) => (
                <a key={t} class="chip" href={href.trace(t)}>
                  {short(t)}
                </a>
              ))}
            </p>
            <Section title="What the agent tried and what it was told">
              <Story spans={c.spans} />
            </Section>
            <Section title={`Timeline (${c.spans.length} spans)`}>
              <Timeline spans={c.spans} />
            </Section>
          </>
        )}
      </Load>
    </>
  );
}
