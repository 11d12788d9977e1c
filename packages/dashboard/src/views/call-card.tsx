// One tool call's contract facts in the timeline: code, attempt, retryable, partial effect, version and hash,
// input shape, validation issues, failed attempts inside the call, and the redacted payload when captured.
import type { SpanCall } from '@toolscope/collector/schemas';
import type { ComponentChildren } from 'preact';
import { whyNotRetry } from '../retry-advice';
import { href } from '../route';
import { prettyJson, valueText } from '../span-model';
import { formatMs } from '../time';
import { Code, counted, Head, Mono, short, versionLabel } from '../ui';

/**
 * A span attribute's value, as text whatever it holds: any span sender could otherwise put a clickable link to
 * a site of its choosing into the dashboard. The dashboard links only to the views it makes itself (route.ts).
 */
export function AttrValue({ value }: { value: unknown }) {
  return <span>{valueText(value)}</span>;
}

export function Attributes({ attrs, label }: { attrs: Record<string, unknown>; label: string }) {
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

export function CallCard({ call }: { call: SpanCall }) {
  const failedAttempts = call.failedAttempts;
  const notAgain = whyNotRetry(call);
  return (
    <div class={`call ${call.code ? 'call-err' : 'call-ok'}`}>
      <dl class="facts">
        <Fact label="code">
          <Code code={call.code} />
        </Fact>
        <Fact label="attempt">{call.attempt ?? '–'}</Fact>
        <Fact label="retryable">{yesNo(call.retryable)}</Fact>
        <Fact label="partial effect">{yesNo(call.partialEffect)}</Fact>
        <Fact label="effect">{call.effect ?? '–'}</Fact>
        <Fact label="version">{versionLabel(call.version) || '–'}</Fact>
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
        {call.legs > 1 && <Fact label="legs">{call.legs}</Fact>}
        {call.inputWaitMs > 0 && <Fact label="waited for input">{formatMs(call.inputWaitMs)}</Fact>}
        {call.task && (
          <Fact label="task">
            {counted(call.task.polls, 'poll')}
            {call.task.pollIntervalMs !== null &&
              `, asked every ${formatMs(call.task.pollIntervalMs)}`}
            , {call.task.status ?? 'status unknown'}
          </Fact>
        )}
        {call.parts > 1 && <Fact label="spans joined">{call.parts}</Fact>}
        {!call.complete && !call.joinedTo && <Fact label="final result">not stored</Fact>}
      </dl>
      {call.joinedTo && (
        <p class="part-of" data-testid="part-of">
          A part of the call held by span{' '}
          <a href={href.trace(call.joinedToTraceId ?? call.traceId, call.joinedTo)}>
            {short(call.joinedTo)}
          </a>
          {call.joinedToTraceId && call.joinedToTraceId !== call.traceId && ' in another trace'}:
          this span's process served one leg or poll of it.
        </p>
      )}
      {notAgain && (
        <p class="retry-why" data-testid="why-not-retry">
          Not retryable as is: {notAgain}.
        </p>
      )}
      {call.exceptionType && (
        <p class="exception" data-testid="exception">
          threw <Mono>{call.exceptionType}</Mono>
          {call.exceptionMessage ? `: ${call.exceptionMessage}` : ''}
        </p>
      )}
      {call.reason && call.reason !== call.code && call.reason !== call.exceptionMessage && (
        <p class="reason">{call.reason}</p>
      )}
      {call.issues.length > 0 && (
        <table class="issues" aria-label="validation issues">
          <Head cols={['Path', 'Issue', 'Message']} />
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
          {failedAttempts.map((e, i) => (
            <li key={`${i}|${e.attempt}`}>
              attempt {e.attempt ?? '?'} failed: {e.code ?? ''} {e.reason ?? ''}
            </li>
          ))}
        </ul>
      )}
      {call.arguments !== null && (
        <details>
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
