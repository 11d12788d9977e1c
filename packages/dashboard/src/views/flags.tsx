// Flags grouped by kind and severity, each with its summary and links straight to the evidence.
import {
  type Flag,
  flagsResponseSchema,
  formatCount,
  formatMs,
  totalWasted,
} from '@toolscope/collector/schemas';
import { query } from '../api';
import { useApi } from '../hooks';
import { href } from '../route';
import { rangeLabel, rangeParams, type TimeRange } from '../time';
import { counted, Load, Mono, Section, short, Time } from '../ui';
import { FixtureDownload } from './fixture-download';

const KIND_TITLES: Record<Flag['kind'], string> = {
  identical_retry: 'Identical retries',
  unrepaired_invalid_input: 'Invalid input repeated without repair',
  retry_after_non_retryable: 'Retries after a non-retryable error',
  unsafe_write_retry: 'Write retried without an idempotency key',
  tool_cycle: 'Cycles of calls without progress',
  argument_churn: 'Arguments changed, same failure',
  polling_no_progress: 'Polling an unchanged answer',
  polling_faster_than_interval: 'Task polled faster than its interval',
  silent_schema_change: 'Contract changed without a version bump',
  version_skew: 'Several versions in use',
  input_drift: 'Input drift',
  output_drift: 'Output drift',
  heavy_schema: 'Schema heavier than the token budget',
  deprecated_tool_in_use: 'Deprecated tool still called',
  oversized_result: 'Results over the token budget',
  result_growth: 'A version returns much more than the one before',
};

export function kindTitle(kind: Flag['kind']): string {
  return KIND_TITLES[kind];
}

function Evidence({ flag }: { flag: Flag }) {
  const traces = [
    ...new Set([...(flag.traceId ? [flag.traceId] : []), ...(flag.evidence.traceIds ?? [])]),
  ].slice(0, 5);
  const spans = flag.evidence.spanIds ?? [];
  const listed = flag.evidence.traceIds ?? [];
  // One span per listed trace (oversized_result's calls), or the spans of one loop in its first trace.
  const spanOf = (traceId: string, i: number) =>
    spans.length > 1 && spans.length === listed.length
      ? spans[listed.indexOf(traceId)]
      : i === 0
        ? spans.at(-1)
        : undefined;
  return (
    <div class="evidence">
      {traces.map((t, i) => (
        <a key={t} class="chip" href={href.trace(t, spanOf(t, i))}>
          trace {short(t)}
        </a>
      ))}
      {flag.conversationId && (
        <a class="chip" href={href.conversation(flag.conversationId)}>
          conversation {short(flag.conversationId, 16)}
        </a>
      )}
      <a class="chip" href={href.tool(flag.tool)}>
        {flag.evidence.schemaHashes || flag.evidence.versions ? 'versions of ' : 'tool '}
        {flag.tool}
      </a>
      {(flag.evidence.paths ?? []).map((p) => (
        <a
          key={p}
          class="chip path"
          href={href.tool(flag.tool)}
          title="failing path: see the tool's paths"
        >
          {p || '(root)'}
        </a>
      ))}
      {(flag.evidence.changes ?? []).map((c) => (
        <span key={c} class="chip change" title="what changed in the contract">
          {c}
        </span>
      ))}
      {(flag.evidence.conversations ?? []).slice(0, 5).map((c) => (
        <a key={c} class="chip" href={href.conversation(c)}>
          conversation {short(c, 16)}
        </a>
      ))}
      {(flag.evidence.clients ?? flag.evidence.callers ?? []).slice(0, 5).map((c) => (
        <span key={c} class="chip" title="still calling it">
          by {c}
        </span>
      ))}
      {flag.evidence.replacedBy && (
        <a class="chip" href={href.tool(flag.evidence.replacedBy)}>
          use {flag.evidence.replacedBy}
        </a>
      )}
      {flag.evidence.resultTokensP95 !== undefined && (
        <span class="chip" title="approximate tokens of a result at p95">
          p95 {formatCount(flag.evidence.resultTokensP95)} tokens
          {flag.evidence.previousTokensP95 !== undefined &&
            ` (was ${formatCount(flag.evidence.previousTokensP95)})`}
        </span>
      )}
      {flag.evidence.cycle && (
        <span class="chip" title="one round of the cycle, and how many rounds ran in a row">
          {flag.evidence.cycle.map((s) => s.tool).join(' → ')} ×{flag.evidence.rounds ?? '?'}
        </span>
      )}
      {flag.evidence.wasted && <WastedChip wasted={flag.evidence.wasted} />}
      {flag.evidence.pollIntervalMs !== undefined && (
        <span
          class="chip"
          title="the client's mean time between polls, and what the server asked for"
        >
          {counted(flag.evidence.polls ?? 0, 'poll')} every{' '}
          {formatMs(flag.evidence.observedPollIntervalMs ?? 0)} · asked{' '}
          {formatMs(flag.evidence.pollIntervalMs)}
        </span>
      )}
      {(flag.evidence.schemaHashes ?? []).map((h) => (
        <span key={h} class="chip" title="schema hash">
          <Mono>{short(h, 12)}</Mono>
        </span>
      ))}
    </div>
  );
}

type Wasted = NonNullable<Flag['evidence']['wasted']>;

/** What a loop cost after its first round: calls, time, result and model tokens. */
export function WastedChip({ wasted }: { wasted: Wasted }) {
  return (
    <span class="chip wasted" title="what the loop cost after its first round">
      wasted {counted(wasted.calls, 'call')} · {formatMs(wasted.ms)} ·{' '}
      {counted(wasted.resultTokens, 'result token')} · {counted(wasted.modelTokens, 'model token')}
    </span>
  );
}

/**
 * What the loops among `flags` cost together, in one line (nothing when none is a loop): each wasted call
 * counted once, and flags that pin the same calls one loop (totalWasted, docs/detectors.md).
 */
export function LoopWaste({ flags }: { flags: Flag[] }) {
  const w = totalWasted(flags);
  if (w.loops === 0) return null;
  return (
    <p
      class="loop-waste"
      data-testid="loop-waste"
      title="each wasted call counted once, even when several flags name it"
    >
      {counted(w.loops, 'loop', 'loops')} wasted {counted(w.calls, 'call', 'calls')},{' '}
      {formatMs(w.ms)}, {counted(w.resultTokens, 'result token', 'result tokens')} and{' '}
      {counted(w.modelTokens, 'model token', 'model tokens')} in this range.
    </p>
  );
}

export function FlagList({
  flags,
  compact,
  range,
}: {
  flags: Flag[];
  compact?: boolean;
  /** The range the flags were read over: a flag's fixture download looks for it there. */
  range?: TimeRange;
}) {
  if (flags.length === 0) {
    return (
      <p class="state" role="status">
        No flags: no retry loops or contract drift in this range.
      </p>
    );
  }
  return (
    <ul class={`flags ${compact ? 'compact' : ''}`}>
      {flags.map((f) => (
        <li
          key={`${f.kind}|${f.tool}|${f.traceId ?? ''}|${f.conversationId ?? ''}|${f.firstSeen}`}
          class={`flag sev-${f.severity}`}
          data-kind={f.kind}
        >
          <div class="flag-head">
            <span class={`sev sev-${f.severity}`}>{f.severity}</span>
            {compact && <span class="kind">{kindTitle(f.kind)}</span>}
            <span class="tool">{f.tool}</span>
            <span class="count">×{f.count}</span>
            <span class="when">
              last <Time iso={f.lastSeen} />
            </span>
          </div>
          <p class="summary">{f.summary}</p>
          <Evidence flag={f} />
          {f.id && (
            <FixtureDownload params={{ flag: f.id, ...(range ? rangeParams(range) : {}) }} />
          )}
        </li>
      ))}
    </ul>
  );
}

export function Flags({ range, tick }: { range: TimeRange; tick: number }) {
  const flags = useApi(`/api/flags${query(rangeParams(range))}`, flagsResponseSchema, tick);
  return (
    <Load loaded={flags} what="flags">
      {(data) => {
        const groups = new Map<string, Flag[]>();
        for (const f of data.flags) {
          const key = `${f.severity === 'error' ? 0 : 1}|${f.kind}`;
          groups.set(key, [...(groups.get(key) ?? []), f]);
        }
        const keys = [...groups.keys()].sort();
        return keys.length === 0 ? (
          <Section title={`Flags, ${rangeLabel(range)}`}>
            <FlagList flags={[]} />
          </Section>
        ) : (
          <>
            <LoopWaste flags={data.flags} />
            {keys.map((k) => {
              const list = groups.get(k) ?? [];
              const first = list[0] as Flag;
              return (
                <Section
                  key={k}
                  title={`${kindTitle(first.kind)} (${first.severity}, ${list.length})`}
                >
                  <FlagList flags={list} range={range} />
                </Section>
              );
            })}
          </>
        );
      }}
    </Load>
  );
}
