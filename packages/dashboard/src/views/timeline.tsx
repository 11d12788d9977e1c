// The trace and conversation timeline: every span in time order with tool calls emphasised, each call's
// contract facts, and a plain-language sequence of what the agent tried and what it was told.
import {
  conversationResponseSchema,
  type SpanOut,
  traceResponseSchema,
} from '@toolscope/collector/schemas';
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo } from 'preact/hooks';
import { useApi } from '../hooks';
import { href, safeExternalUrl } from '../route';
import {
  depths,
  KIND_NAMES,
  prettyJson,
  type ToolCallView,
  toolCallOf,
  valueText,
} from '../span-model';
import { formatMs } from '../time';
import { Code, Load, Mono, Section, short, Time } from '../ui';
import { Story } from './story';

function AttrValue({ value }: { value: unknown }) {
  const text = valueText(value);
  const url = typeof value === 'string' ? safeExternalUrl(value) : undefined;
  return url ? (
    <a href={url} rel="noopener noreferrer nofollow" target="_blank">
      {text}
    </a>
  ) : (
    <span>{text}</span>
  );
}

function Attributes({ attrs, label }: { attrs: Record<string, unknown>; label: string }) {
  const entries = Object.entries(attrs).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return null;
  return (
    <details>
      <summary>
        {label} ({entries.length})
      </summary>
      <table class="attrs">
        <tbody>
          {entries.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">
                <Mono>{k}</Mono>
              </th>
              <td>
                <AttrValue value={v} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const yesNo = (v: boolean | null) => (v === null ? '–' : v ? 'yes' : 'no');

export function CallCard({ call, span }: { call: ToolCallView; span: SpanOut }) {
  const failedAttempts = span.events.filter((e) => e.name === 'toolscope.attempt.failed');
  return (
    <div class={`call ${call.code ? 'call-err' : 'call-ok'}`}>
      <dl class="facts">
        <Fact label="code">
          <Code code={call.code} />
        </Fact>
        <Fact label="attempt">{call.attempt ?? '–'}</Fact>
        <Fact label="retryable">{yesNo(call.retryable)}</Fact>
        <Fact label="partial effect">{call.partialEffect ? 'yes' : 'no'}</Fact>
        <Fact label="effect">{call.effect ?? '–'}</Fact>
        <Fact label="version">{call.version ?? '–'}</Fact>
        <Fact label="schema hash">
          {call.schemaHash ? (
            <Mono title={call.schemaHash}>{short(call.schemaHash, 16)}</Mono>
          ) : (
            '–'
          )}
        </Fact>
        <Fact label="input shape">{call.inputShape ? <Mono>{call.inputShape}</Mono> : '–'}</Fact>
        <Fact label="input hash">
          {call.inputHash ? <Mono title={call.inputHash}>{short(call.inputHash, 16)}</Mono> : '–'}
        </Fact>
        {call.callId && <Fact label="call id">{<Mono>{call.callId}</Mono>}</Fact>}
        {call.replay && <Fact label="idempotent replay">yes</Fact>}
      </dl>
      {call.reason && call.reason !== call.code && <p class="reason">{call.reason}</p>}
      {call.issues.length > 0 && (
        <table class="issues" aria-label="validation issues">
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Issue</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {call.issues.map((i) => (
              <tr key={`${i.path}|${i.code}|${i.message}`}>
                <td>
                  <Mono>{i.path}</Mono>
                </td>
                <td>{i.code}</td>
                <td>{i.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {failedAttempts.length > 0 && (
        <ul class="attempts" aria-label="failed attempts inside this call">
          {failedAttempts.map((e) => (
            <li key={e.timeUnixNano}>
              attempt {valueText(e.attributes['toolscope.attempt'] ?? '?')} failed:{' '}
              {valueText(e.attributes['toolscope.error.code'] ?? '')}{' '}
              {valueText(
                e.attributes['toolscope.error.reason'] ?? e.attributes['exception.message'] ?? '',
              )}
            </li>
          ))}
        </ul>
      )}
      {call.arguments !== null && (
        <details open>
          <summary>Arguments (redacted)</summary>
          <pre class="payload">{prettyJson(call.arguments)}</pre>
        </details>
      )}
      {call.result !== null && (
        <details>
          <summary>Result (redacted)</summary>
          <pre class="payload">{prettyJson(call.result)}</pre>
        </details>
      )}
      {call.arguments === null && call.result === null && (
        <p class="muted">Payload not captured (capture is off by default).</p>
      )}
    </div>
  );
}

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
