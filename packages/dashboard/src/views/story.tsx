// The readable sequence of a failed decision: each tool call the agent made, in order, with what it sent
// (shape, and whether it repeated an earlier input unchanged) and what the tool answered.
import type { SpanOut } from '@toolscope/collector/schemas';
import { href } from '../route';
import { type ToolCallView, toolCallOf } from '../span-model';
import { formatMs } from '../time';
import { Code, Mono, short, Time } from '../ui';

type Step = { span: SpanOut; call: ToolCallView };

function answer(call: ToolCallView): string {
  if (!call.code) return call.replay ? 'answered from the idempotency store (replay)' : 'succeeded';
  const first = call.issues
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
  const more = call.issues.length > 3 ? ` (+${call.issues.length - 3} more)` : '';
  // The code is the cause's class; `retryable` is the executor's policy for this call: said apart, so that
  // "RETRYABLE, not retryable" (a write that timed out without an idempotency key) does not read as a typo.
  const retry =
    call.retryable === null
      ? ''
      : call.retryable
        ? ' — the executor allows a retry'
        : ' — the executor says not to retry it as is';
  const effect = call.partialEffect ? ' — the effect may already have happened' : '';
  const threw = call.exceptionType
    ? `threw ${call.exceptionType}${call.exceptionMessage ? `: ${call.exceptionMessage}` : ''}`
    : null;
  return `${first ? `${first}${more}` : (threw ?? call.reason ?? 'failed')}${retry}${effect}`;
}

export function Story({ spans }: { spans: SpanOut[] }) {
  const all: Step[] = [];
  for (const span of spans) {
    const call = toolCallOf(span);
    if (call) all.push({ span, call });
  }
  // A call seen from both sides (MCP client and server) is told once, from the server's side.
  const hasServerSide = all.some((s) => !s.call.client);
  const steps = hasServerSide ? all.filter((s) => !s.call.client) : all;
  if (steps.length === 0) return <p class="state">No tool calls in these spans.</p>;
  const firstByHash = new Map<string, number>();
  const t0 = BigInt(steps[0]?.span.startTimeUnixNano ?? '0');
  return (
    <ol class="story">
      {steps.map(({ span, call }, i) => {
        const n = i + 1;
        const repeatOf = call.inputHash
          ? firstByHash.get(`${call.tool}|${call.inputHash}`)
          : undefined;
        if (call.inputHash && repeatOf === undefined)
          firstByHash.set(`${call.tool}|${call.inputHash}`, n);
        return (
          <li key={`${span.traceId}|${span.spanId}`} class={call.code ? 'step-err' : 'step-ok'}>
            <div class="step-head">
              <span class="step-n">#{n}</span> <Time iso={span.startTime} />{' '}
              {n > 1 && (
                <span class="muted">
                  (+{formatMs(Number(BigInt(span.startTimeUnixNano) - t0) / 1e6)}){' '}
                </span>
              )}
              <span class="muted">called</span> <b class="tool">{call.tool}</b>
              {call.version && (
                <span class="muted">
                  {' '}
                  {call.version === 'unversioned' ? '(unversioned)' : `v${call.version}`}
                </span>
              )}
              {call.attempt !== null && call.attempt > 1 && (
                <span class="muted"> (attempt {call.attempt})</span>
              )}
              {call.inputShape && (
                <>
                  {' '}
                  <span class="muted">with</span> <Mono>{call.inputShape}</Mono>
                </>
              )}
              {repeatOf !== undefined && <span class="badge bad">same input as #{repeatOf}</span>}
            </div>
            <div class="step-answer">
              <span class="muted">was told</span> <Code code={call.code} /> {answer(call)}{' '}
              <a href={href.trace(span.traceId, span.spanId)} title="show this span">
                span {short(span.spanId)}
              </a>
            </div>
          </li>
        );
      })}
    </ol>
  );
}
