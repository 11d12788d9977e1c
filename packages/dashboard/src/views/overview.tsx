// Overview: per tool calls, error rate, latency and codes; calls and error rate over time; the newest flags.
import {
  flagsResponseSchema,
  type ToolStats,
  type ToolsResponse,
  toolsResponseSchema,
} from '@toolscope/collector/schemas';
import { useMemo, useState } from 'preact/hooks';
import { query } from '../api';
import { CallsChart } from '../chart';
import { useApi } from '../hooks';
import { type ClientFilter, href } from '../route';
import { useFittedSeries } from '../series';
import { formatMs, formatPercent, rangeLabel, rangeParams, type TimeRange } from '../time';
import {
  Code,
  clientLabel,
  counted,
  Load,
  Section,
  SortHeader,
  type SortState,
  versionLabel,
} from '../ui';
import { FlagList, LoopWaste } from './flags';
import { RecoveryShare } from './recovery';
import { drawable, ToolSpark } from './sparkline';

type Key = 'name' | 'calls' | 'errors' | 'errorRate' | 'p50Ms' | 'p95Ms';

function sorted(tools: ToolStats[], sort: SortState<Key>): ToolStats[] {
  const dir = sort.desc ? -1 : 1;
  return [...tools].sort((a, b) => {
    const x = a[sort.key];
    const y = b[sort.key];
    if (x === y) return a.name < b.name ? -1 : 1;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * dir;
  });
}

export function EmptyState() {
  const endpoint = `${location.origin}/v1/traces`;
  return (
    <div class="empty" role="status">
      <h2>No tool calls in this range yet</h2>
      <p>
        Point any OTLP/HTTP exporter at <code class="mono">{endpoint}</code> (protobuf or JSON).
        With <code class="mono">@toolscope/instrument</code>:
      </p>
      <pre class="snippet">
        {`import { setupToolscope } from '@toolscope/instrument/setup';
setupToolscope({ serviceName: 'my-mcp-server', endpoint: '${location.origin}' });`}
      </pre>
      <p>
        Or set <code class="mono">OTEL_EXPORTER_OTLP_ENDPOINT={location.origin}</code> for an
        existing OpenTelemetry setup. Spans appear here within a second of arriving.
      </p>
    </div>
  );
}

export function Overview({
  range,
  tick,
  client,
}: {
  range: TimeRange;
  tick: number;
  client?: ClientFilter | undefined;
}) {
  const params = rangeParams(range);
  const tools = useApi(
    `/api/tools${query({ ...params, client: client?.client, clientVersion: client?.clientVersion })}`,
    toolsResponseSchema,
    tick,
  );
  // One series for the chart and the tools' sparklines, so both show the same steps.
  const series = useFittedSeries(range, tick, undefined, true);
  const sparks = new Map(
    series.state === 'ready' ? (series.data.tools ?? []).map((t) => [t.name, t]) : [],
  );
  // The column shows only when some tool's calls spread over more than one step, and not for one client's
  // calls (the series counts every client).
  const overTime = !client && [...sparks.values()].some(drawable);
  const flags = useApi(`/api/flags${query(params)}`, flagsResponseSchema, tick);
  const [sort, setSort] = useState<SortState<Key>>({ key: 'calls', desc: true });
  const rows = useMemo(
    () => (tools.state === 'ready' ? sorted(tools.data.tools, sort) : []),
    [tools, sort],
  );
  return (
    <>
      <Section
        title={
          client
            ? `Tools called by ${clientLabel(client.client, client.clientVersion)}, ${rangeLabel(range)}`
            : `Tools, ${rangeLabel(range)}`
        }
      >
        {client && (
          <p class="state" data-testid="client-filter">
            Only the calls of this client. The chart and the flags below count every client.{' '}
            <a href={href.overview()}>All clients</a>
          </p>
        )}
        <Load loaded={tools} what="tool statistics">
          {(data) =>
            data.tools.length === 0 ? (
              client ? (
                <p class="state">No calls from this client in this range.</p>
              ) : (
                <EmptyState />
              )
            ) : (
              <div class="table-wrap">
                <table class="tools" aria-label="tool statistics">
                  <thead>
                    <tr>
                      <SortHeader label="Tool" sortKey="name" sort={sort} onSort={setSort} />
                      <SortHeader label="Calls" sortKey="calls" sort={sort} onSort={setSort} />
                      {overTime && (
                        <th scope="col" title="calls per step of the chart below; red: errors">
                          Over time
                        </th>
                      )}
                      <SortHeader label="Errors" sortKey="errors" sort={sort} onSort={setSort} />
                      <SortHeader
                        label="Error rate"
                        sortKey="errorRate"
                        sort={sort}
                        onSort={setSort}
                      />
                      <SortHeader label="p50" sortKey="p50Ms" sort={sort} onSort={setSort} />
                      <SortHeader label="p95" sortKey="p95Ms" sort={sort} onSort={setSort} />
                      <th scope="col">Codes</th>
                      <th scope="col">Versions</th>
                      <th scope="col" title="the instrumentations its calls were read from">
                        Source
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((t) => (
                      <tr key={t.name} data-tool={t.name}>
                        <th scope="row">
                          <a href={href.tool(t.name)}>{t.name}</a>
                        </th>
                        <td class="num" data-col="calls">
                          {t.calls}
                        </td>
                        {overTime && (
                          <td data-col="spark">
                            <ToolSpark series={sparks.get(t.name)} name={t.name} />
                          </td>
                        )}
                        <td class="num" data-col="errors">
                          {t.errors}
                        </td>
                        <td class={`num ${t.errorRate > 0 ? 'bad' : ''}`} data-col="errorRate">
                          {formatPercent(t.errorRate)}
                        </td>
                        <td class="num" data-col="p50">
                          {formatMs(t.p50Ms)}
                        </td>
                        <td class="num" data-col="p95">
                          {formatMs(t.p95Ms)}
                        </td>
                        <td class="codes">
                          {Object.entries(t.codes).map(([code, n]) =>
                            // The calls list has no client filter: a link would list every client's calls.
                            client ? (
                              <span
                                key={code}
                                class="chip"
                                title={`${counted(n, 'call')} with ${code}`}
                              >
                                <Code code={code} /> {n}
                              </span>
                            ) : (
                              <a
                                key={code}
                                class="chip"
                                href={href.calls({ tool: t.name, code })}
                                title={`${counted(n, 'call')} with ${code}`}
                              >
                                <Code code={code} /> {n}
                              </a>
                            ),
                          )}
                        </td>
                        <td>{t.versions.map(versionLabel).join(', ') || '–'}</td>
                        <td data-col="sources">{t.sources.join(', ') || '–'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Load>
      </Section>
      <Load loaded={tools} what="schema weights">
        {(data) => <HeaviestSchemas contracts={data.contracts} servers={data.servers} />}
      </Load>
      <Section title="Calls and error rate over time">
        <Load loaded={series} what="the time series">
          {(data) => (
            <CallsChart
              points={data.points}
              label={`calls and error rate per ${Math.round(data.stepMs / 60_000)} minutes`}
            />
          )}
        </Load>
      </Section>
      <Section title="Flags">
        <Load loaded={flags} what="flags">
          {(data) => (
            <>
              <RecoveryShare range={range} tick={tick} />
              <LoopWaste flags={data.flags} />
              <FlagList flags={data.flags.slice(0, 8)} compact range={range} />
              {data.flags.length > 8 && (
                <p data-testid="flags-left-out">
                  {data.flags.length - 8} more not shown: {leftOut(data.flags.slice(8))}.{' '}
                  <a href={href.flags()}>All {data.flags.length} flags</a>
                </p>
              )}
            </>
          )}
        </Load>
      </Section>
    </>
  );
}

/** The heaviest tools/list entries (schemas cost context before the first call). */
function HeaviestSchemas({
  contracts,
  servers,
}: {
  contracts: ToolsResponse['contracts'];
  servers: ToolsResponse['servers'];
}) {
  // Every reported tool, called in the range or not (the API sorts them heaviest first).
  const weighed = contracts;
  if (weighed.length === 0) return null;
  const top = weighed.slice(0, 5);
  return (
    <Section title="Heaviest schemas (tools/list, approximate tokens)">
      <ol class="weights" aria-label="heaviest schemas">
        {top.map((t) => (
          <li key={t.name} data-tool={t.name}>
            <a href={href.tool(t.name)}>{t.name}</a> <b>{t.schemaTokens}</b> tokens ({t.schemaBytes}{' '}
            B)
            {t.deprecated && <span class="badge bad">deprecated</span>}
          </li>
        ))}
      </ol>
      {weighed.length > top.length && (
        <p class="state">{counted(weighed.length - top.length, 'lighter tool')} not shown.</p>
      )}
      {servers.length > 0 && (
        <p class="state">
          Per server:{' '}
          {servers
            .map(
              (s) =>
                `${s.service} ${counted(s.schemaTokens, 'token')} in ${counted(s.tools, 'tool')}`,
            )
            .join('; ')}
        </p>
      )}
    </Section>
  );
}

/** What a truncated flag list left out, by kind and tool: `unsafe_write_retry on order_intent ×2`. */
function leftOut(flags: { kind: string; tool: string }[]): string {
  const counts = new Map<string, number>();
  for (const f of flags)
    counts.set(`${f.kind} on ${f.tool}`, (counts.get(`${f.kind} on ${f.tool}`) ?? 0) + 1);
  return [...counts].map(([what, n]) => (n > 1 ? `${what} ×${n}` : what)).join(', ');
}
