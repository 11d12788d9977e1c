// Lists of calls (a tool's failing calls, calls with a code, a call id) and the search results page.
import { type Call, callsResponseSchema, searchResponseSchema } from '@toolscope/collector/schemas';
import { useState } from 'preact/hooks';
import { getApi, query } from '../api';
import { useApi } from '../hooks';
import { href } from '../route';
import { formatMs, rangeParams, type TimeRange } from '../time';
import { Code, ErrorBox, Head, Load, Mono, Section, short, Time, versionLabel } from '../ui';

export function CallTable({ calls }: { calls: Call[] }) {
  if (calls.length === 0) return <p class="state">No calls match.</p>;
  return (
    <div class="table-wrap">
      <table aria-label="calls">
        <Head cols={['Time', 'Tool', 'Code', 'Attempt', 'Duration', 'Issues', 'Trace']} />
        <tbody>
          {calls.map((c) => (
            <tr key={`${c.traceId}|${c.spanId}`}>
              <td>
                <Time iso={c.startTime} />
              </td>
              <td>
                <a href={href.tool(c.tool)}>{c.tool}</a>
                {c.version && <span class="muted"> {versionLabel(c.version)}</span>}
              </td>
              <td>
                <Code code={c.code} />
              </td>
              <td class="num">{c.attempt}</td>
              <td class="num">{formatMs(c.durationMs)}</td>
              <td>
                {c.issues.slice(0, 3).map((i) => (
                  <div key={`${i.path}|${i.code}`}>
                    <Mono>{i.path || '(root)'}</Mono> {i.message}
                  </div>
                ))}
              </td>
              <td>
                <a href={href.trace(c.traceId, c.spanId)}>{short(c.traceId)}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CallsView({
  filter,
  range,
  tick,
}: {
  filter: { tool?: string; code?: string; callId?: string };
  range: TimeRange;
  tick: number;
}) {
  const base = { ...rangeParams(range), ...filter, limit: 100 };
  const first = useApi(`/api/calls${query(base)}`, callsResponseSchema, tick);
  const [more, setMore] = useState<{ calls: Call[]; cursor: string | null; error?: string }>();
  const title = [
    filter.tool && `tool ${filter.tool}`,
    filter.code && `code ${filter.code}`,
    filter.callId && `call id ${filter.callId}`,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <Section title={`Calls${title ? `: ${title}` : ''}`}>
      <Load loaded={first} what="calls">
        {(data) => {
          const calls = [...data.calls, ...(more?.calls ?? [])];
          const cursor = more ? more.cursor : data.nextCursor;
          return (
            <>
              <CallTable calls={calls} />
              {more?.error && <ErrorBox message={more.error} />}
              {cursor && (
                <button
                  type="button"
                  onClick={async () => {
                    const r = await getApi(
                      `/api/calls${query({ ...base, cursor })}`,
                      callsResponseSchema,
                    );
                    setMore(
                      r.ok
                        ? {
                            calls: [...(more?.calls ?? []), ...r.data.calls],
                            cursor: r.data.nextCursor,
                          }
                        : { calls: more?.calls ?? [], cursor, error: r.message },
                    );
                  }}
                >
                  Load more
                </button>
              )}
            </>
          );
        }}
      </Load>
    </Section>
  );
}

export function SearchView({ q, tick }: { q: string; tick: number }) {
  const results = useApi(q ? `/api/search${query({ q })}` : null, searchResponseSchema, tick);
  if (!q)
    return <p class="state">Type a trace id, call id, conversation id, tool or error code.</p>;
  return (
    <Section title={`Search: ${q}`}>
      <Load loaded={results} what="search results">
        {(data) =>
          data.results.length === 0 ? (
            <p class="state">
              Nothing matches <Mono>{q}</Mono> (trace ids are 32 hex characters; tools and codes
              seen in the last 7 days are searched).
            </p>
          ) : (
            <ul class="results">
              {data.results.map((r) => {
                const link =
                  r.kind === 'trace'
                    ? href.trace(r.value)
                    : r.kind === 'conversation'
                      ? href.conversation(r.value)
                      : r.kind === 'call'
                        ? href.trace(r.traceId ?? '', r.value)
                        : r.kind === 'tool'
                          ? href.tool(r.value)
                          : href.calls({ code: r.value });
                // The label starts with the kind ("conversation conv-9"): the chip says it once.
                const rest = r.label.startsWith(`${r.kind} `)
                  ? r.label.slice(r.kind.length + 1)
                  : r.label;
                return (
                  <li key={`${r.kind}|${r.value}`}>
                    <a href={link}>
                      <span class="kind">{r.kind}</span> {rest}
                    </a>
                  </li>
                );
              })}
            </ul>
          )
        }
      </Load>
    </Section>
  );
}
